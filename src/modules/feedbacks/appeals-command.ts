import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createContext } from '../../domain/context.js';
import { ValidationError } from '../../http/errors.js';
import { PageCache, registerPageCache } from '../storefront/index.js';
import type { AppealStatus } from './feedbacks.table.js';
import { listAppealsForReview, type OperatorAppeal, resolveAppeal } from './service.js';

const statuses: readonly AppealStatus[] = ['open', 'accepted', 'rejected'];

/**
 * A buyer's or owner's text as one line safe for the operator's terminal: runs of white space are
 * one space, and other control characters (an escape sequence could rewrite the screen or the
 * terminal's title) are shown as `\uXXXX`.
 */
export function printable(text: string | null): string {
  return (
    (text ?? '')
      .replace(/\s+/g, ' ')
      .trim()
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  );
}

/** One tab-separated line per appeal: id, shop, feedback, rating, status, reason, dates, description and comment on one line each. */
function line(a: OperatorAppeal): string {
  return [
    a.id,
    `shop ${a.shopId}`,
    `feedback ${a.feedbackId}`,
    `${a.rating}/5`,
    a.status,
    a.reason,
    a.createdAt,
    a.resolvedAt ?? '-',
    printable(a.description),
    printable(a.comment),
  ].join('\t');
}

/**
 * `shopd appeals list [--status s]`, `shopd appeals accept <appealId>`, `shopd appeals reject
 * <appealId>`: the operator reviews appeals shop owners file against feedbacks. With REDIS_URL
 * set, a verdict also reaches the page caches of running servers at once (they share their
 * versions through Redis); without it, a running server shows the change once its cached pages
 * age out (at most a minute).
 */
export async function appealsCommand(
  config: Config,
  action: string,
  arg: string | undefined,
  options: { status?: string | undefined },
  print: (line: string) => void,
): Promise<void> {
  if (options.status !== undefined && !(statuses as readonly string[]).includes(options.status)) {
    throw ValidationError.field('--status', `must be one of: ${statuses.join(', ')}`);
  }
  const appealId = Number(arg);
  if (action !== 'list' && (!/^\d{1,15}$/.test(arg ?? '') || appealId < 1))
    throw ValidationError.field('appealId', `appeals ${action} needs a numeric appeal id`);
  const db = openDatabase(config.database);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2 }) : null;
  const unregister = redis
    ? registerPageCache(new PageCache({ maxBytes: 0, redis: { client: redis, prefix: config.redisKeyPrefix } }))
    : () => undefined;
  try {
    await migrateToLatest(db.kysely);
    const ctx = createContext(db.kysely, config);
    if (action === 'list') {
      const appeals = await listAppealsForReview(ctx, options.status as AppealStatus | undefined);
      for (const appeal of appeals) print(line(appeal));
      if (appeals.length === 0) print(options.status ? `no ${options.status} appeals` : 'no appeals');
      return;
    }
    const resolved = await resolveAppeal(ctx, appealId, action === 'accept' ? 'accepted' : 'rejected');
    print(line(resolved));
    print(
      resolved.status === 'accepted'
        ? `accepted: feedback ${resolved.feedbackId} of shop ${resolved.shopId} is hidden from its storefront and figures`
        : `rejected: feedback ${resolved.feedbackId} of shop ${resolved.shopId} stays`,
    );
  } finally {
    unregister();
    await db.destroy();
    await redis?.quit();
  }
}
