/**
 * How an outbox retries a failed send. Each outbox keeps its own numbers (mail backs off within
 * the hour; webhook retries are the documented three days, docs/api/webhooks.md); what follows a
 * failure is decided for both by `nextAttemptAt`.
 */
export interface RetrySchedule {
  /** Attempts in all, the first included: when the last of them fails, the work is given up. */
  readonly attempts: number;
  /** The wait after the `failed`th failed attempt (1 after the first) before the next one. */
  delayMs(failed: number): number;
}

/** When the next attempt is due after the `failed`th failed attempt at `now`; null: none, given up. */
export function nextAttemptAt(schedule: RetrySchedule, failed: number, now: number): number | null {
  return failed >= schedule.attempts ? null : now + schedule.delayMs(failed);
}
