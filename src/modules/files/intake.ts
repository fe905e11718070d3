import { Readable } from 'node:stream';
import type { FastifyError, FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, ValidationError } from '../../http/errors.js';
import { MEDIA_TYPE_PATTERN } from './schema.js';

/**
 * What arrives with an upload: the multipart part, the name it is stored under, the media type
 * it is served with. The bytes are never held whole: only the first HEAD_BYTES are looked at.
 */

const MULTIPART = 'multipart/form-data';
const OCTET_STREAM = 'application/octet-stream';
/** What file-type reads to recognise a format. */
export const HEAD_BYTES = 4100;
const MAX_NAME_CHARACTERS = 255;

/** An upload's `file` part. */
export interface IncomingFile {
  filename: string;
  mimetype: string;
  stream: Readable;
}

/** The request's body failed while it was read (malformed multipart, a client that went away): a 400, not a 500. */
export class IncomingStreamError extends Error {
  constructor(cause: unknown) {
    super('the request body could not be read', { cause });
  }
}

export function payloadTooLarge(maxBytes: number): AppError {
  return new AppError(413, 'payload_too_large', `The file is larger than the file limit of ${maxBytes} bytes.`, [
    `file: must be at most ${maxBytes} bytes`,
  ]);
}

export function notMultipart(): AppError {
  return new ValidationError([`body: is not valid ${MULTIPART}`], `The body is not valid ${MULTIPART}.`);
}

/**
 * The `file` part of a multipart request, its bytes still to be read; at most `maxBytes + 1` of
 * them are passed on, so the store sees that the file is over the limit and stops.
 */
export async function receiveFilePart(request: FastifyRequest, maxBytes: number): Promise<IncomingFile> {
  if (!request.isMultipart()) {
    throw new AppError(415, 'unsupported_media_type', `Send the file as ${MULTIPART} with a part named "file".`, [
      `body: must be ${MULTIPART}`,
    ]);
  }
  let part: Awaited<ReturnType<typeof request.file>>;
  try {
    part = await request.file({ limits: { fileSize: maxBytes + 1 } });
  } catch (err) {
    if ((err as FastifyError).statusCode === 413) {
      throw new AppError(413, 'payload_too_large', 'The form has too many parts; send only the file.', [
        'body: has too many parts',
      ]);
    }
    throw notMultipart();
  }
  if (part?.fieldname !== 'file') {
    part?.file.resume();
    throw ValidationError.field('file', 'is required');
  }
  return { filename: part.filename, mimetype: part.mimetype, stream: part.file };
}

/**
 * The name a file is stored and downloaded as: the last segment of any path, without control
 * or direction-changing characters, surrounding whitespace trimmed, at most 255 characters.
 * Empty when nothing is left.
 */
export function cleanFileName(raw: string): string {
  const last = raw.split(/[/\\]/).pop() ?? '';
  // C0/C1 controls, and the bidirectional overrides that make `evil\u202Efdp.exe` look like a PDF.
  const visible = last.replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '').trim();
  if (visible === '.' || visible === '..') return '';
  return Array.from(visible).slice(0, MAX_NAME_CHARACTERS).join('').trim();
}

const mediaType = new RegExp(MEDIA_TYPE_PATTERN);

/**
 * What a file is served as: the format its first bytes show, if file-type knows it; else the
 * type the client declared, if it is a plain `type/subtype`; else `application/octet-stream`.
 */
export async function chooseContentType(head: Buffer, declared: string | undefined): Promise<string> {
  const detected = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  if (detected) return detected.mime;
  const bare = declared?.split(';')[0]?.trim().toLowerCase();
  return bare && mediaType.test(bare) ? bare : OCTET_STREAM;
}

/**
 * Reads the first `bytes` of `source` (fewer if it ends first) and answers them with a stream of
 * all of it, the head included, that reads the rest of `source` as it is read itself. A failure
 * of `source` becomes an IncomingStreamError.
 */
export async function peekHead(source: Readable, bytes = HEAD_BYTES): Promise<{ head: Buffer; body: Readable }> {
  const iterator: AsyncIterator<Buffer> = source[Symbol.asyncIterator]();
  const next = async () => {
    try {
      return await iterator.next();
    } catch (err) {
      throw new IncomingStreamError(err);
    }
  };
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const step = await next();
    if (step.done) {
      ended = true;
      break;
    }
    chunks.push(step.value);
    length += step.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* all(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      while (!ended) {
        const step = await next();
        if (step.done) ended = true;
        else yield step.value;
      }
    } finally {
      // Stopped early (the store refused the file): the source is let go of too.
      if (!ended) source.destroy();
    }
  }
  return { head, body: Readable.from(all(), { objectMode: false }) };
}
