import { createHmac, randomBytes } from 'node:crypto';
import { OutboundError, postGuarded } from '../../http/outbound.js';

/**
 * One signed POST per the Standard Webhooks specification: headers `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` keyed with the base64 part of the `whsec_` secret), through the
 * guarded client of `http/outbound.ts` (public addresses only, no redirects, one deadline); a
 * 2xx within the timeout is success.
 */
const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface Message {
  id: string;
  timestamp: number;
  body: string;
  secret: string;
}

/** What webhooks read of an answer: enough for a short error text, never the whole of a large body. */
const MAX_ANSWER_BYTES = 64 * 1024;

export async function sendWebhook(
  url: string,
  message: Message,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const answer = await postGuarded(
      {
        url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'shopd-webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(message.timestamp),
          'webhook-signature': sign(message.secret, message.id, message.timestamp, message.body),
        },
        body: message.body,
      },
      { ...options, maxResponseBytes: MAX_ANSWER_BYTES },
    );
    const ok = answer.status >= 200 && answer.status < 300;
    return { statusCode: answer.status, durationMs: took(), error: ok ? null : `answered HTTP ${answer.status}` };
  } catch (err) {
    if (err instanceof OutboundError) return { statusCode: null, durationMs: took(), error: err.message };
    throw err;
  }
}
