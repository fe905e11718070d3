import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { assertPublicUrl, publicOnlyLookup, UnsafeUrlError } from './address-guard.js';

/**
 * One signed POST per the Standard Webhooks specification: headers `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` keyed with the base64 part of the `whsec_` secret). No redirects
 * are followed; a 2xx within the timeout is success.
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

export async function sendWebhook(url: string, message: Message, options: { timeoutMs: number; allowPrivate: boolean }): Promise<SendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    // IP literals never reach the socket's lookup: check them (and the scheme) here, every time.
    await assertPublicUrl(url, options.allowPrivate);
  } catch (err) {
    return { statusCode: null, durationMs: took(), error: err instanceof UnsafeUrlError ? `refused: ${err.message}` : String(err) };
  }
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(message.body),
          'user-agent': 'shopd-webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(message.timestamp),
          'webhook-signature': sign(message.secret, message.id, message.timestamp, message.body),
        },
        timeout: options.timeoutMs,
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup as never }),
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          resolve({ statusCode: status, durationMs: took(), error: status >= 200 && status < 300 ? null : `answered HTTP ${status}` });
        });
        response.on('error', (err) => resolve({ statusCode: response.statusCode ?? null, durationMs: took(), error: err.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', (err) => resolve({ statusCode: null, durationMs: took(), error: err.message }));
    request.end(message.body);
  });
}
