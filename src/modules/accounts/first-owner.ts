import { sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import { type Context, onConnection } from '../../domain/context.js';
import * as repo from './repository.js';
import { issueApiKey } from './service.js';
import { issuePasswordSetupToken } from './sessions.service.js';

export const FIRST_OWNER_EMAIL = 'owner@localhost';

/** The advisory lock key of the first-owner step (any constant: "shopd1" in ASCII). */
const FIRST_OWNER_LOCK = 0x73686f706431;

/**
 * On an empty database, creates the first owner with an API key and a one-time token for the link
 * that sets its password (both shown once, by the server's first start); else undefined.
 */
export async function ensureFirstOwner(
  ctx: Context,
): Promise<{ email: string; key: string; setupToken: string } | undefined> {
  // One transaction: a start that dies half-way leaves no owner without a link, and the next start makes them.
  return ctx.db.transaction().execute(async (trx) => {
    // Several instances starting at once on a new PostgreSQL database take turns here, so one of
    // them makes the owner and the others find it (SQLite's write lock already serialises this).
    if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${FIRST_OWNER_LOCK})`.execute(trx);
    if ((await repo.countAccounts(trx)) > 0) return undefined;
    const inTrx = onConnection(ctx, trx);
    const { accountId, key } = await issueApiKey(inTrx, { email: FIRST_OWNER_EMAIL });
    return { email: FIRST_OWNER_EMAIL, key, setupToken: await issuePasswordSetupToken(inTrx, accountId) };
  });
}
