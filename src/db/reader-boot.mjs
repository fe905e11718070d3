// Starts the reader thread (reader-thread.ts or, compiled, .js). A worker does not inherit the
// TypeScript loader the process runs under (tsx), so it registers it itself when it needs it.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) (await import('tsx/esm/api')).register();
await import(workerData.entry);
