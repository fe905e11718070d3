import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `done()` holds, for something a timer of the code under test does on its own. The
 * deadline only bounds a hang (five minutes, far beyond any busy machine): the outcome never
 * depends on how fast the machine is. Fails naming `what` if it never happens.
 */
export async function waitUntil(done: () => boolean | Promise<boolean>, what: string, hangMs = 300_000): Promise<void> {
  const deadline = Date.now() + hangMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${hangMs / 1000} s for ${what}`);
    await sleep(10);
  }
}
