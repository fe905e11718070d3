import type { Readable } from 'node:stream';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type LinkSettings, storefrontBase } from '../../http/storefront-url.js';
import { langOf } from '../../i18n/lang.js';
import { chooseLocale, LANGUAGE_COOKIE } from '../../i18n/negotiate.js';
import { requireShop } from '../shops/index.js';
import { REFUSAL_PAGE_HEADERS, type RefusalShop, refusalPage } from './download-page.js';
import { type DownloadOutcome, type Refusal, recordSentBytes, type ServedFile } from './downloads.service.js';
import { attachmentDisposition, type ByteRange } from './file-store.js';

/**
 * How a download decision (downloads.service.ts requestDownload) is answered over HTTP: the
 * bytes streamed from disk with their headers (206 for a range), a redirect to a presigned URL
 * on S3, a 416, or a refusal as a small page for browsers and the error envelope for others.
 * Every answer is `Cache-Control: private, no-store`: a link is one buyer's.
 */
type Conn = Kysely<Database>;

/** What a download's body is: a stream of the bytes (disk), or a presigned URL to redirect to (S3). */
export type DownloadBody = { stream: Readable } | { redirect: string };

/** How long a presigned URL of S3 storage is valid: long enough to start, short enough not to be shared. */
export const PRESIGNED_SECONDS = 300;

const PRIVATE = 'private, no-store';

export interface ReplyDeps {
  db: Conn;
  links: LinkSettings;
  log: FastifyBaseLogger;
}

export async function sendDownload(
  deps: ReplyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  shopId: number,
  outcome: DownloadOutcome<DownloadBody>,
): Promise<FastifyReply> {
  void reply.header('cache-control', PRIVATE);
  switch (outcome.kind) {
    case 'refused':
      return sendRefusal(deps, request, reply, shopId, outcome.refusal);
    case 'missing':
      return sendEnvelope(reply, 404, 'not_found', 'The file is no longer available.', [
        'file: is gone from storage; contact the shop',
      ]);
    case 'unsatisfiable':
      void reply.header('content-range', `bytes */${outcome.file.size}`);
      return sendEnvelope(reply, 416, 'range_not_satisfiable', 'The range asked for is outside the file.', [
        `range: the file has ${outcome.file.size} bytes`,
      ]);
    case 'serve': {
      const { file, range, body, logId } = outcome;
      if (body && 'redirect' in body)
        return reply.header('referrer-policy', 'no-referrer').redirect(body.redirect, 302);
      setFileHeaders(reply, file, range);
      if (!body) return reply.send();
      const record = logId === undefined ? async () => {} : onceRecorder(deps, shopId, logId);
      return reply.send(metered(body.stream, record, reply));
    }
  }
}

function setFileHeaders(reply: FastifyReply, file: ServedFile, range: ByteRange | undefined): void {
  void reply
    .code(range ? 206 : 200)
    .header('content-type', file.contentType)
    .header('content-length', String(range ? range.end - range.start + 1 : file.size))
    .header('content-disposition', attachmentDisposition(file.name))
    .header('accept-ranges', 'bytes')
    .header('etag', file.validators.etag)
    .header('last-modified', file.validators.lastModified)
    .header('x-content-type-options', 'nosniff')
    // Should a browser show it rather than save it, nothing in it runs on this origin.
    .header('content-security-policy', "default-src 'none'; sandbox");
  if (range) void reply.header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
}

/** Sets the log entry's bytes once, whichever comes first: the end of the bytes or the connection's close. */
function onceRecorder(deps: ReplyDeps, shopId: number, logId: number): (bytes: number) => Promise<void> {
  let done = false;
  return async (bytes) => {
    if (done) return;
    done = true;
    await recordSentBytes(deps.db, shopId, logId, bytes).catch((err: unknown) =>
      deps.log.error({ err, logId }, 'recording the bytes of a download failed'),
    );
  };
}

/**
 * The file's bytes through a counter. When they have all passed, the log gets their number
 * before the response ends (so whoever reads the order after the download sees it); a response
 * cut off (the client went away) gets the bytes handed to the connection until then.
 */
function metered(source: Readable, record: (bytes: number) => Promise<void>, reply: FastifyReply): Readable {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      void record(bytes).then(() => callback());
    },
  });
  reply.raw.once('close', () => void record(bytes));
  // Destroying the counter (Fastify does when the client goes away) closes the file too.
  pipeline(source, counter, () => {});
  return counter;
}

function sendEnvelope(reply: FastifyReply, status: number, code: string, message: string, errors: string[]) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ data: null, message, errors, code }));
}

const wantsHtml = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

async function sendRefusal(
  deps: ReplyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  shopId: number,
  refusal: Refusal,
): Promise<FastifyReply> {
  void reply.header('vary', 'Accept');
  if (!wantsHtml(request)) return sendEnvelope(reply, refusal.status, refusal.code, refusal.message, refusal.errors);
  const shop = await shopOfPage(deps, shopId);
  // The buyer's language as the storefront chose it: the switcher's cookie, the browser's, the shop's.
  const lang = langOf(
    chooseLocale({
      chosen: fastifyCookie.parse(request.headers.cookie ?? '')[LANGUAGE_COOKIE],
      acceptLanguage: request.headers['accept-language'],
      shopDefault: shop?.language,
    }),
  );
  return reply
    .code(refusal.status)
    .headers({ ...REFUSAL_PAGE_HEADERS, vary: 'Accept, Accept-Language, Cookie' })
    .type('text/html; charset=utf-8')
    .send(refusalPage(refusal, shop, lang));
}

/** The shop the path names, for the page's link to it; none when there is no such shop. */
async function shopOfPage(deps: ReplyDeps, shopId: number): Promise<RefusalShop | undefined> {
  try {
    const shop = await requireShop(deps.db, shopId);
    return {
      name: shop.name,
      language: shop.language,
      url: storefrontBase(deps.links, { subdomain: shop.subdomain, customDomain: shop.custom_domain }),
    };
  } catch {
    return undefined;
  }
}
