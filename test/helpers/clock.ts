import type { Clock } from '../../src/domain/context.js';

/**
 * A clock a test moves by hand: `build(t, env, { clock })`, then `clock.advance(1000)` where a
 * test would otherwise sleep to get a later timestamp. It starts at the real time, so what the
 * app compares with the system's clock (cookie and token expiry in libraries) still holds.
 */
export class TestClock implements Clock {
  #now: number;

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }
}

/** The app's context at a later moment (a background job's pass then), leaving the app's own clock alone. */
export { atTime } from '../../src/domain/context.js';
