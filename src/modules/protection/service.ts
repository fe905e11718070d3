import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import type { ShopProtectionRow } from './protection.table.js';
import * as repo from './repository.js';
import { DEFAULT_PROTECTION, type ProtectionBody, type ShopProtection } from './schema.js';

function fromRow(row: ShopProtectionRow): ShopProtection {
  return {
    holdMinutesHosted: row.hold_minutes_hosted,
    unitsPerClient: row.units_per_client,
    pendingPerClient: row.pending_per_client,
    hostedCheckoutsPerHour: row.hosted_checkouts_per_hour,
    mailPerRecipientHour: row.mail_per_recipient_hour,
    mailPerClientHour: row.mail_per_client_hour,
    mailPerShopDay: row.mail_per_shop_day,
    disputeBlacklist: row.dispute_blacklist === 1,
    disputeAutoSubmit: row.dispute_auto_submit === 1,
    challenge: row.challenge as ShopProtection['challenge'],
    challengeThreshold: row.challenge_threshold,
  };
}

/** The shop's protection settings: the defaults until the owner changes one. */
export async function protectionOf(db: Kysely<Database>, shopId: number): Promise<ShopProtection> {
  const row = await repo.findProtection(db, shopId);
  return row ? fromRow(row) : { ...DEFAULT_PROTECTION };
}

/** Applies the given settings over the current ones and answers them all. */
export async function updateProtection(ctx: Context, shopId: number, body: ProtectionBody): Promise<ShopProtection> {
  return ctx.db.transaction().execute(async (trx) => {
    const next = { ...(await protectionOf(trx, shopId)), ...body };
    await repo.saveProtection(trx, {
      shop_id: shopId,
      hold_minutes_hosted: next.holdMinutesHosted,
      units_per_client: next.unitsPerClient,
      pending_per_client: next.pendingPerClient,
      hosted_checkouts_per_hour: next.hostedCheckoutsPerHour,
      mail_per_recipient_hour: next.mailPerRecipientHour,
      mail_per_client_hour: next.mailPerClientHour,
      mail_per_shop_day: next.mailPerShopDay,
      dispute_blacklist: next.disputeBlacklist ? 1 : 0,
      dispute_auto_submit: next.disputeAutoSubmit ? 1 : 0,
      challenge: next.challenge,
      challenge_threshold: next.challengeThreshold,
      updated_at: ctx.clock.now(),
    });
    return next;
  });
}
