import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toIso } from '../../schemas/common.js';
import type { SecretBox } from '../../security/secret-box.js';
import { type LinkFacts, macMatches, readToken, signLink } from './download-links.js';
import { answerRange, type RangeAnswer, type Validators, validatorsOf } from './download-ranges.js';
import * as repo from './downloads.repository.js';
import type { ByteRange } from './file-store.js';

/**
 * Downloads of files a completed order was granted: the grants (one per file per order, made in
 * the order's completion transaction), the signed links shown on the order, the decision on each
 * download request (refused, or served counted or not), its log, and revocation by a full refund.
 */
type Conn = Kysely<Database>;

const HOUR_MS = 3_600_000;
/** How much of a user agent the log keeps. */
const USER_AGENT_CHARS = 300;

/** A file of a completed order, with a fresh link (the order's public view). */
export interface Download {
  fileId: string;
  name: string;
  size: number;
  url: string;
  expiresAt: string;
  /** Downloads left; null = unlimited. */
  remaining: number | null;
}

/** One download served (the owner's view of the order). */
export interface DownloadLogEntry {
  fileId: string;
  name: string;
  at: string;
  ip: string | null;
  userAgent: string | null;
  bytes: number;
  counted: boolean;
}

/**
 * Grants the order the files attached to the variant (in their order), with the variant's terms
 * as they are at delivery: `downloadLimit` per file (0 = unlimited) and `linkHours` per link. In
 * the order's completion transaction; a file the invoice was already granted keeps its grant.
 */
export async function grantDownloads(
  db: Conn,
  shopId: number,
  invoiceId: string,
  variantId: number,
  terms: { downloadLimit: number; linkHours: number },
  now: number,
): Promise<void> {
  const fileIds = await repo.attachedFileIds(db, shopId, variantId);
  await repo.insertGrants(db, shopId, invoiceId, fileIds, terms, now);
}

/** The path of a link, below the public prefix. */
export function downloadPath(shopId: number, token: string): string {
  return `/v2/public/shops/${shopId}/downloads/${token}`;
}

const linkFacts = (grant: repo.GrantWithFile, expiresAt: number): LinkFacts => ({
  shopId: grant.shop_id,
  grantId: grant.id,
  fileId: grant.file_id,
  invoiceId: grant.invoice_id,
  expiresAt,
});

/**
 * The order's files with links valid from `now` for the grant's link hours (minted anew on every
 * read, so an opened order page always has working links); none once a refund revoked them.
 */
export async function downloadsOfInvoice(
  db: Conn,
  secrets: SecretBox,
  shopId: number,
  invoiceId: string,
  now: number,
  baseUrl: string,
): Promise<Download[]> {
  const grants = await repo.liveGrantsOfInvoice(db, shopId, invoiceId);
  return grants.map((grant) => {
    const expiresAt = now + grant.link_hours * HOUR_MS;
    return {
      fileId: grant.file_id,
      name: grant.name,
      size: grant.size,
      url: `${baseUrl}${downloadPath(shopId, signLink(secrets, linkFacts(grant, expiresAt)))}`,
      expiresAt: toIso(expiresAt),
      remaining: grant.download_limit === 0 ? null : Math.max(0, grant.download_limit - grant.downloads),
    };
  });
}

/** Every download of the order's files, newest first. */
export async function downloadLogOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<DownloadLogEntry[]> {
  const rows = await repo.logOfInvoice(db, shopId, invoiceId);
  return rows.map((row) => ({
    fileId: row.file_id,
    name: row.name ?? '(deleted file)',
    at: toIso(row.at),
    ip: row.ip,
    userAgent: row.user_agent,
    bytes: row.bytes,
    counted: row.counted === 1,
  }));
}

/** Ends the order's downloads (a full refund): its links answer 410 and the order shows none. */
export function revokeInvoiceDownloads(db: Conn, shopId: number, invoiceId: string, now: number): Promise<void> {
  return repo.revokeGrantsOfInvoice(db, shopId, invoiceId, now);
}

/** Why a download is refused; nothing is counted and nothing is sent. */
export type RefusalReason = 'invalid' | 'expired' | 'used_up' | 'revoked';

export interface Refusal {
  reason: RefusalReason;
  status: 403 | 410;
  code: 'forbidden' | 'link_expired' | 'download_limit_reached' | 'download_revoked';
  message: string;
  /** What the buyer can do about it. */
  advice: string;
  errors: string[];
}

const REFUSALS: Record<RefusalReason, Omit<Refusal, 'reason'>> = {
  invalid: {
    status: 403,
    code: 'forbidden',
    message: 'This download link is not valid.',
    advice:
      'The link may have been cut short or changed, or it belongs to another shop. Open your order page and use the link shown there.',
    errors: ['token: is not a valid download link of this shop'],
  },
  expired: {
    status: 410,
    code: 'link_expired',
    message: 'This download link has expired.',
    advice: 'Open your order page again (the link is in your order e-mail): it always shows fresh download links.',
    errors: ['token: the link has expired; the order page gives a fresh one'],
  },
  used_up: {
    status: 410,
    code: 'download_limit_reached',
    message: 'This file has been downloaded as many times as the order allows.',
    advice: 'Contact the shop if you need to download it again.',
    errors: ['downloads: the download limit of this file is used up'],
  },
  revoked: {
    status: 410,
    code: 'download_revoked',
    message: "This order's downloads have ended: the order was refunded.",
    advice: 'Contact the shop if you think this is a mistake.',
    errors: ['order: was refunded; its downloads are revoked'],
  },
};

const refusal = (reason: RefusalReason): Refusal => ({ reason, ...REFUSALS[reason] });

/** What a download serves: the file's bytes as the store has them, and how to answer about them. */
export interface ServedFile {
  name: string;
  size: number;
  contentType: string;
  storageKey: string;
  validators: Validators;
}

export type DownloadOutcome<T> =
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unsatisfiable'; file: ServedFile }
  /** The store has no object for the file (it was removed behind the service's back): 404, nothing counted. */
  | { kind: 'missing' }
  | {
      kind: 'serve';
      file: ServedFile;
      /** Undefined: the whole file. */
      range: ByteRange | undefined;
      /** What `opener.open` gave (undefined for HEAD, which opens nothing). */
      body: T | undefined;
      counted: boolean;
      /** The log entry of this download (none for HEAD), whose `bytes` are set when it ends. */
      logId: number | undefined;
    };

export interface DownloadRequest {
  shopId: number;
  token: string;
  /** HEAD: answered like GET (refusals included) but nothing is opened, counted or logged. */
  head: boolean;
  range: string | undefined;
  ifRange: string | undefined;
  ip: string;
  userAgent: string | undefined;
  /**
   * The store hands the bytes out itself (S3, a redirect to a presigned URL): the log records
   * the bytes handed over then, as the server never sees them sent.
   */
  redirected: boolean;
}

/**
 * How the bytes are reached: `open` (a stream from disk, a presigned URL) runs once the request
 * passed every check but the count, so a file missing from storage counts nothing; `discard`
 * releases what it opened when the count then refuses.
 */
export interface DownloadOpener<T> {
  open(file: ServedFile, range: ByteRange | undefined): Promise<T | undefined>;
  discard(body: T): void;
}

/**
 * Decides a download request. Checked in this order, each refusal counting nothing: the token
 * and its MAC over the grant of this shop (403), its expiry (410), a refund (410), the range
 * (416), the file in storage (404). Then a request counts, unless it is a range starting after
 * byte 0 of a grant counted at least once (a resumed download): that one is served while the
 * link is valid, even with the limit used up. The count is one conditional update (repository
 * `countDownload`), so parallel requests never take more than the limit; one it refuses is 410.
 * Every download served is logged with the count, in one transaction.
 */
export async function requestDownload<T>(
  db: Conn,
  secrets: SecretBox,
  request: DownloadRequest,
  now: number,
  opener: DownloadOpener<T>,
): Promise<DownloadOutcome<T>> {
  const read = readToken(request.token);
  if (!read) return { kind: 'refused', refusal: refusal('invalid') };
  const grant = await repo.findGrant(db, request.shopId, read.grantId);
  if (!grant || !macMatches(secrets, read, linkFacts(grant, read.expiresAt)))
    return { kind: 'refused', refusal: refusal('invalid') };
  if (now >= read.expiresAt) return { kind: 'refused', refusal: refusal('expired') };
  if (grant.revoked_at !== null) return { kind: 'refused', refusal: refusal('revoked') };

  const file: ServedFile = {
    name: grant.name,
    size: grant.size,
    contentType: grant.content_type,
    storageKey: grant.storage_key,
    validators: validatorsOf(grant),
  };
  const asked: RangeAnswer = answerRange(request.range, request.ifRange, file.size, file.validators);
  if (asked.kind === 'unsatisfiable') return { kind: 'unsatisfiable', file };
  const range = asked.kind === 'partial' ? asked.range : undefined;
  const resumed = range !== undefined && range.start > 0 && grant.downloads > 0;

  if (request.head) {
    const left = grant.download_limit === 0 || grant.downloads < grant.download_limit;
    if (!resumed && !left) return { kind: 'refused', refusal: refusal('used_up') };
    return { kind: 'serve', file, range, body: undefined, counted: false, logId: undefined };
  }

  const body = await opener.open(file, range);
  if (body === undefined) return { kind: 'missing' };
  const length = range ? range.end - range.start + 1 : file.size;
  let logId: number | undefined;
  try {
    logId = await db.transaction().execute(async (trx) => {
      if (!resumed && !(await repo.countDownload(trx, request.shopId, grant.id))) return undefined;
      return repo.insertLogEntry(trx, {
        shop_id: request.shopId,
        grant_id: grant.id,
        invoice_id: grant.invoice_id,
        file_id: grant.file_id,
        at: now,
        ip: request.ip || null,
        user_agent: request.userAgent ? request.userAgent.slice(0, USER_AGENT_CHARS) : null,
        range: range ? `bytes=${range.start}-${range.end}` : null,
        counted: resumed ? 0 : 1,
        bytes: request.redirected ? length : 0,
      });
    });
  } catch (err) {
    opener.discard(body);
    throw err;
  }
  if (logId === undefined) {
    opener.discard(body);
    const revoked = await repo.grantRevoked(db, request.shopId, grant.id);
    return { kind: 'refused', refusal: refusal(revoked ? 'revoked' : 'used_up') };
  }
  return { kind: 'serve', file, range, body, counted: !resumed, logId };
}

/** The bytes a download actually sent, once its response finished or was cut off. */
export function recordSentBytes(db: Conn, shopId: number, logId: number, bytes: number): Promise<void> {
  return repo.setLoggedBytes(db, shopId, logId, bytes);
}
