import type { ByteRange } from './file-store.js';

/**
 * What a download request asks of a file's bytes (RFC 9110 §14): all of them, one range, or a
 * range the file cannot satisfy (416). A Range header that is not one well-formed byte range (a
 * typo, another unit, several ranges) is ignored and the whole file served, as the RFC allows; so
 * is a range an `If-Range` validator no longer matches (the file changed since the first part).
 */
export type RangeAnswer = { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/** The file's validators: its strong ETag (from its SHA-256) and Last-Modified (its upload). */
export interface Validators {
  etag: string;
  lastModified: string;
}

export function validatorsOf(file: { sha256: string; file_created_at: number }): Validators {
  return { etag: `"${file.sha256}"`, lastModified: new Date(file.file_created_at).toUTCString() };
}

export function answerRange(
  header: string | undefined,
  ifRange: string | undefined,
  size: number,
  validators: Validators,
): RangeAnswer {
  if (header === undefined || size === 0) return { kind: 'full' };
  const match = SINGLE_RANGE.exec(header.trim());
  if (!match) return { kind: 'full' };
  if (ifRange !== undefined && !ifRangeHolds(ifRange.trim(), validators)) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}

/** `If-Range`: the strong ETag exactly, or the Last-Modified date exactly (weak tags never match). */
function ifRangeHolds(value: string, validators: Validators): boolean {
  if (value.startsWith('"') || value.startsWith('W/')) return value === validators.etag;
  return value === validators.lastModified;
}
