import { type Context, onConnection, type WriteContext } from './context.js';

/**
 * Domain events, dispatched in-process and in-transaction: the write that makes a change emits
 * an event inside its transaction, and every owner of data derived from it (rollups, storefront
 * totals, customer totals, stock counts, the mail and webhook outboxes) has registered a handler
 * in its own module (its `subscribers.ts`), which src/app.ts wires once. The handlers run in the
 * emitter's transaction (they are given its `WriteContext`), one after another, so the derived
 * data commits or rolls back with the change; what must wait for the commit (emptying a page
 * cache) is queued with the context's `afterCommit`.
 * The producer names no consumer. (The models: Vendure's blocking event handlers, Medusa's
 * subscribers; these are synchronous with the write.)
 */
export type Handler<E> = (tx: WriteContext, event: E) => Promise<void>;

interface Registered<E> {
  handler: Handler<E>;
  last: boolean;
}

export class Dispatcher<Events extends object> {
  readonly #handlers = new Map<keyof Events, Registered<never>[]>();
  readonly #subscribers = new Set<(dispatcher: Dispatcher<Events>) => void>();

  /**
   * Lets a module's `subscribe` register its handlers, once per process however many apps are
   * built (the tests build many): the handlers are module functions, not per app.
   */
  use(subscriber: (dispatcher: Dispatcher<Events>) => void): void {
    if (this.#subscribers.has(subscriber)) return;
    this.#subscribers.add(subscriber);
    subscriber(this);
  }

  /**
   * Registers `handler` for `type`. Handlers run in registration order, those registered `last`
   * after all others: the rollups, whose shop lock is the last lock of every write transaction
   * (see the lock order in docs/internals.md). Registering the same handler again changes nothing.
   */
  on<K extends keyof Events>(type: K, handler: Handler<Events[K]>, options: { last?: boolean } = {}): void {
    const list = (this.#handlers.get(type) ?? []) as Registered<Events[K]>[];
    if (list.some((entry) => entry.handler === handler)) return;
    list.push({ handler, last: options.last ?? false });
    list.sort((a, b) => Number(a.last) - Number(b.last));
    this.#handlers.set(type, list as Registered<never>[]);
  }

  /** How many handlers `type` has (the wiring's test). */
  subscriberCount(type: keyof Events): number {
    return this.#handlers.get(type)?.length ?? 0;
  }

  /** Runs every handler of `type` in the transaction of `tx` (a `writeTransaction`'s). */
  async emit<K extends keyof Events>(tx: WriteContext, type: K, event: Events[K]): Promise<void> {
    const list = this.#handlers.get(type) as Registered<Events[K]>[] | undefined;
    // Every event has derived data; none subscribed means the app did not wire its subscribers.
    if (!list?.length) throw new Error(`no subscriber of ${String(type)}: src/app.ts wires them`);
    for (const { handler } of list) await handler(tx, event);
  }
}

/**
 * A write transaction on `ctx`'s database whose domain events may be emitted: `fn` is given the
 * context of the transaction, and once it has committed, the work its handlers queued with
 * `afterCommit` runs (a page computed before the commit can then never be served after it).
 */
export async function writeTransaction<T>(ctx: Context, fn: (tx: WriteContext) => Promise<T>): Promise<T> {
  const work = new Map<string, () => Promise<void>>();
  const result = await ctx.db.transaction().execute((trx) =>
    fn({
      ...onConnection(ctx, trx),
      afterCommit(key, run) {
        if (!work.has(key)) work.set(key, run);
      },
    }),
  );
  await Promise.all([...work.values()].map((run) => run()));
  return result;
}
