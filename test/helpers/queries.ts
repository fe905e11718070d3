import type { FastifyInstance } from 'fastify';

/**
 * Counts the reads the app's main connection runs while `fn` runs (served pages are recorded as
 * visits, written in batches: writes are not what is counted).
 */
export async function selectsDuring(app: FastifyInstance, fn: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const stop = app.db.observeQueries((e) => {
    if (/^\s*select/i.test(e.sql)) count++;
  });
  try {
    await fn();
  } finally {
    stop();
  }
  return count;
}
