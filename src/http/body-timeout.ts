import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * Request bodies that arrive too slowly are cut (issue 36, L3): a body trickling one byte every
 * 15 s held its connection (and its place among the server's sockets) for as long as the client
 * liked. A total time for the whole request (Node's `requestTimeout`) cannot tell that apart from
 * a large file uploaded over a slow line: `POST /self/{shopId}/files` streams up to 2 GiB in one
 * body, which needs many minutes at a few MB/s. So the rule is a minimum rate, as Apache's
 * mod_reqtimeout has it: the body gets `timeoutMs` (REQUEST_BODY_TIMEOUT_MS, 30 s), and one
 * more second for every `minRate` bytes (REQUEST_BODY_MIN_RATE, 8 KiB) it has delivered. An
 * upload sending at least `minRate` bytes a second never runs out of time, however large it is;
 * a trickle does within `timeoutMs` plus a second per `minRate` bytes sent. A cut request is
 * answered 408 (`request_timeout`) when no answer has begun, and its connection closed.
 * `timeoutMs` 0 turns the rule off. Headers have Node's own `headersTimeout` (60 s).
 *
 * Bytes are counted on the socket (`bytesRead`), never by reading the body here: a listener on
 * the request stream would take the data from the parser that reads it.
 */
export function registerBodyTimeout(app: FastifyInstance, limits: Config['requestBody']): void {
  if (limits.timeoutMs === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const socket = request.raw.socket;
    // Injected requests (tests) have no network socket to be slow on.
    if (!(socket instanceof Socket) || request.raw.complete || !hasBody(request)) return;
    const startedAt = Date.now();
    const readBefore = socket.bytesRead;
    let timer: NodeJS.Timeout | undefined;
    // A keep-alive socket carries many requests: each takes its listener off when its body is in.
    const stop = () => {
      clearTimeout(timer);
      socket.off('close', stop);
      request.raw.off('end', stop);
    };
    const check = () => {
      if (request.raw.complete || socket.destroyed) return stop();
      const received = socket.bytesRead - readBefore;
      const wait = bodyDeadline(startedAt, received, limits) - Date.now();
      if (wait > 0) timer = setTimeout(check, wait).unref();
      else cut(request, reply, received);
    };
    timer = setTimeout(check, limits.timeoutMs).unref();
    socket.once('close', stop);
    request.raw.once('end', stop);
  });
}

/** When a body that began at `startedAt` and has delivered `received` bytes runs out of time (ms since the epoch). */
export function bodyDeadline(startedAt: number, received: number, limits: Config['requestBody']): number {
  return startedAt + limits.timeoutMs + Math.floor((received * 1000) / limits.minRate);
}

function hasBody(request: FastifyRequest): boolean {
  const { 'content-length': length, 'transfer-encoding': encoding } = request.headers;
  return encoding !== undefined || (length !== undefined && length !== '0');
}

function cut(request: FastifyRequest, reply: FastifyReply, received: number): void {
  const socket = request.raw.socket;
  request.log.info({ receivedBytes: received }, 'request body too slow: 408, connection closed');
  if (reply.sent || reply.raw.headersSent) {
    socket.destroy();
    return;
  }
  // Answered here, not through Fastify: its body parser is still waiting and fails once the socket closes.
  reply.hijack();
  const body = JSON.stringify({
    data: null,
    message: 'The request body arrived too slowly; the connection is closed.',
    errors: ['body: arrived too slowly'],
    code: 'request_timeout',
  });
  reply.raw.once('finish', () => socket.destroy());
  reply.raw.writeHead(408, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
    'x-request-id': request.id,
  });
  reply.raw.end(body);
}
