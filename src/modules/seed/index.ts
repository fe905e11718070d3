// The seed module's door: what the composition root (src/cli.ts) uses of it.
export { seedDemo } from './demo.js';
