import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';

/**
 * The customer area's sign-in as a buyer goes through it: ask for a code, read it from the mail
 * the shop wrote to the outbox (the newest to that address), trade it for a session token.
 */

/** The code in the newest sign-in mail to `email` in the shop's outbox (the text part: the code on a line of its own). */
export async function mailedCode(app: FastifyInstance, shopId: number, email: string): Promise<string> {
  const mail = await app.db.kysely
    .selectFrom('mail_outbox')
    .select(['subject', 'body_text'])
    .where('shop_id', '=', shopId)
    .where('to_address', '=', email.toLowerCase())
    .where('subject', 'like', 'Your sign-in code%')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  assert.ok(mail, `a sign-in mail to ${email}`);
  const code = /^(\d{6})$/m.exec(mail.body_text)?.[1];
  assert.ok(code, 'the mail carries a 6-digit code');
  return code;
}

/** Asks the shop to mail a sign-in code to `email` and answers the code from the outbox. */
export async function requestCode(
  app: FastifyInstance,
  shopId: number,
  email: string,
  extra: { key?: string; remoteAddress?: string } = {},
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/customer/sign-in`,
    payload: { email, ...(extra.key ? { key: extra.key } : {}) },
    ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
  });
  assert.equal(res.statusCode, 200, res.body);
  return mailedCode(app, shopId, email);
}

/** A customer session token of the shop for `email`, through the real code mail. */
export async function customerSession(
  app: FastifyInstance,
  shopId: number,
  email: string,
  extra: { key?: string; remoteAddress?: string } = {},
): Promise<string> {
  const code = await requestCode(app, shopId, email, extra);
  const res = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/customer/session`,
    payload: { email, code, ...(extra.key ? { key: extra.key } : {}) },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.token as string;
}
