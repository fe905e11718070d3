import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The owner's admin: built into `web/admin/dist` and served by the server at `/admin`, with
 * hashed file names under `/admin/assets/` (cached for a year) and `index.html` revalidated.
 * `npm run dev:admin` serves it with hot reload, sending API calls to a server on :3000.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 300,
  },
  server: {
    proxy: { '/self': 'http://127.0.0.1:3000', '/uploads': 'http://127.0.0.1:3000', '/s/': 'http://127.0.0.1:3000' },
  },
});
