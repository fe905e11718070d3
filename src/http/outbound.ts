import http from 'node:http';
import https from 'node:https';
import {
  checkedLookup,
  checkUrlShape,
  hostOf,
  isPublicAddress,
  type Resolver,
  systemResolver,
  type UnsafeUrlError,
} from './address-guard.js';

/**
 * The one HTTP client for calls to URLs an owner chose (webhooks, dynamic delivery). The owner
 * controls the URL and its DNS, so every call:
 * - is http or https, without credentials, and follows no redirect (a 3xx is an answer like any other);
 * - connects only to a checked public address: an IP literal is checked before connecting, a host
 *   name is resolved by the socket's own `lookup`, which refuses non-public answers — the address
 *   checked is the address connected to, so DNS that changes its answer (rebinding) cannot slip past;
 * - ends within `timeoutMs` in all (connecting, answering and the body), so an endpoint that
 *   trickles bytes cannot hold the caller longer than that;
 * - reads at most `maxResponseBytes` of the answer, then stops reading and closes the connection:
 *   an endpoint that streams forever costs that many bytes, not memory or time.
 * Private addresses are allowed only when the server allows them (ALLOW_PRIVATE_WEBHOOKS=true).
 * Failures are an `OutboundError` whose message says what happened, fit for a delivery log.
 */
export class OutboundError extends Error {
  override name = 'OutboundError';
}

export interface OutboundOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  maxResponseBytes: number;
  /** How host names are resolved; the system resolver unless a test stands in for DNS. */
  resolve?: Resolver;
}

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface OutboundResponse {
  status: number;
  /** At most `maxResponseBytes`. */
  body: Buffer;
  /** The answer was longer than `maxResponseBytes`: reading stopped there. */
  truncated: boolean;
}

/**
 * Keep-alive agents, one per resolver (a connection made under one address rule is never reused
 * under another). Idle sockets close after 4 s, before the 5 s a Node server keeps them, so a
 * request is not sent on a socket the other side is closing.
 */
const agents = new Map<Resolver | 'any', { http: http.Agent; https: https.Agent }>();

function agentFor(protocol: string, allowPrivate: boolean, resolve: Resolver): http.Agent {
  const key = allowPrivate ? 'any' : resolve;
  let pair = agents.get(key);
  if (!pair) {
    const options = {
      keepAlive: true,
      timeout: 4000,
      scheduling: 'lifo' as const,
      ...(allowPrivate ? {} : { lookup: checkedLookup(resolve) }),
    };
    pair = { http: new http.Agent(options), https: new https.Agent(options) };
    agents.set(key, pair);
  }
  return protocol === 'https:' ? pair.https : pair.http;
}

/** POSTs `body` to `url` under the rules above; answers the status and the (capped) body. */
export async function postGuarded(request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = checkUrlShape(request.url);
  } catch (err) {
    throw new OutboundError(`refused: ${(err as UnsafeUrlError).message}`);
  }
  const { host, literal } = hostOf(url);
  // An IP literal never reaches the socket's lookup: it is checked here, before connecting.
  if (literal && !options.allowPrivate && !isPublicAddress(host))
    throw new OutboundError(`refused: ${host} is not a public address`);
  const client = url.protocol === 'https:' ? https : http;
  const agent = agentFor(url.protocol, options.allowPrivate, options.resolve ?? systemResolver);

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: OutboundResponse | OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (outcome instanceof OutboundError) reject(outcome);
      else resolve(outcome);
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          const room = options.maxResponseBytes - size;
          if (chunk.length <= room) {
            chunks.push(chunk);
            size += chunk.length;
            return;
          }
          chunks.push(chunk.subarray(0, room));
          size += room;
          // Enough: stop reading and drop the connection rather than drain the rest.
          res.destroy();
          finish({ status, body: Buffer.concat(chunks, size), truncated: true });
        });
        res.on('end', () => finish({ status, body: Buffer.concat(chunks, size), truncated: false }));
        res.on('error', (err) => finish(new OutboundError(err.message)));
        res.on('close', () => finish(new OutboundError('the connection closed before the answer ended')));
      },
    );
    const deadline = setTimeout(() => {
      finish(new OutboundError(`no answer within ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err) => finish(new OutboundError(err.message)));
    req.end(request.body);
  });
}
