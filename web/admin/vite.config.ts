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
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The libraries every screen runs on, in chunks of their own: a new admin build that
          // changes only its own code leaves these files' names, and so the browser's cached
          // copies, as they were. The ones a few screens load (uPlot, ajv-formats) stay with them.
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            {
              name: 'vendor',
              test: /node_modules[\\/](@tanstack|wouter|regexparam|openapi-fetch|react-hook-form|@hookform|@standard-schema)[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: { '/self': 'http://127.0.0.1:3000', '/uploads': 'http://127.0.0.1:3000', '/s/': 'http://127.0.0.1:3000' },
  },
});
