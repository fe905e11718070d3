import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { type Client, onEnd, type Reply } from './build.js';
import { multipartForm } from './multipart.js';
import { testRedisUrl } from './redis.js';
import { type ServerProcess, startServer } from './server-process.js';
import { webhookReceiver } from './webhook-receiver.js';

/**
 * Helpers for tests of several server processes on one database and one Redis
 * (test/multi-instance.test.ts): HTTP clients bound to one process, the Redis prefix they share,
 * their metrics, and a webhook receiver.
 */

/**
 * Starts `count` servers with the same environment at once, as a deployment starts its
 * instances; each is stopped when the test ends (before the database it uses is dropped).
 */
export async function startServers(t: TestContext, env: Record<string, string>, count: number) {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startServer(env)));
  const servers: ServerProcess[] = [];
  for (const result of started) {
    if (result.status === 'fulfilled') {
      servers.push(result.value);
      onEnd(t, () => result.value.stop());
    }
  }
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return servers;
}

/**
 * A client of one running server over HTTP, with the shape of `client(app, key)` (build.ts), so
 * the factories work against a process. An empty `key` sends no `Authorization` (a buyer);
 * `headers` go with every request (e.g. the client address a trusted proxy forwards).
 */
export function httpClient(baseUrl: string, key: string, headers: Record<string, string> = {}): Client {
  const send = async (
    method: string,
    url: string,
    body: Uint8Array<ArrayBuffer> | string | undefined,
    extra: Record<string, string>,
  ): Promise<Reply> => {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers, ...extra },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    const answered: Reply['headers'] = {};
    res.headers.forEach((value, name) => {
      answered[name] = value;
    });
    return { status: res.status, body: parsed, headers: answered };
  };
  const request = (method: string, url: string, body?: unknown, extra: Record<string, string> = {}) =>
    body === undefined
      ? send(method, url, undefined, extra)
      : send(method, url, JSON.stringify(body), { 'content-type': 'application/json', ...extra });
  return {
    key,
    request,
    get: (url) => request('GET', url),
    post: (url, body, extra) => request('POST', url, body, extra),
    put: (url, body) => request('PUT', url, body),
    delete: (url) => request('DELETE', url),
    upload: (url, file, filename = 'image.png') => {
      const form = multipartForm([{ name: 'file', data: file, filename, type: 'application/octet-stream' }]);
      return send('POST', url, new Uint8Array(form.payload), form.headers);
    },
  };
}

/** A Redis key prefix of the test's own (counters are per IP, and other tests use the same); its keys go when the test ends. */
export function redisPrefix(t: TestContext): string {
  const prefix = `shopd-test-${randomBytes(6).toString('hex')}:`;
  onEnd(t, async () => {
    const redis = new Redis(testRedisUrl);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

/** A server's `/metrics` (Prometheus text format), read with its token. */
export async function readMetrics(baseUrl: string, token: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${baseUrl}/metrics answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** The sum of a metric's samples whose labels include `labels`; 0 when it has no such sample. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const given = new Map([...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([label, value]) => given.get(label) === value)) sum += Number(sample[3]);
  }
  return sum;
}

export interface ReceivedHook {
  /** The `webhook-id` header: the event's id. */
  id: string;
  body: { id: string; type: string; shopId: number; data: Record<string, unknown> };
}

/** A local HTTP endpoint that answers 200 to every webhook; `received()` reads what came, in order. */
export async function webhookHooks(t: TestContext): Promise<{ url: string; received: () => ReceivedHook[] }> {
  const { url, received } = await webhookReceiver(t);
  return {
    url,
    received: () => received.map((r) => ({ id: String(r.headers['webhook-id']), body: JSON.parse(r.body) })),
  };
}
