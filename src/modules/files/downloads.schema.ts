import { Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../schemas/common.js';
import { PublicShopId } from '../shops/index.js';

/**
 * The public download route's request and answers. The token is taken as any text (up to 200
 * characters, the router's limit): a garbled one is a 403 like a tampered one, not a 400.
 */
export const DownloadParams = Type.Object({
  shopId: PublicShopId,
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The signed token of a download link, as the order gives it (`downloads[].url`).',
  }),
});

export const DownloadHeaders = Type.Object({
  range: Type.Optional(
    Type.String({
      description:
        'One byte range (`bytes=start-end`, `bytes=start-`, `bytes=-suffix`) answers 206. Several ranges, another unit ' +
        'or a malformed value are ignored (the whole file, 200). A range starting after byte 0 of a file downloaded ' +
        'before does not count.',
    }),
  ),
  'if-range': Type.Optional(
    Type.String({
      description: 'The ETag (or Last-Modified date) the first part came with: a mismatch serves the whole file.',
    }),
  ),
});

const bytes = { schema: { type: 'string', format: 'binary' } };
const refusal = (description: string) => ({
  description,
  content: {
    'application/json': { schema: Type.Ref(ErrorEnvelope) },
    'text/html': { schema: { type: 'string', description: 'A short page saying what happened and what to do.' } },
  },
});
const fileHeaders = {
  'content-disposition': { type: 'string', description: '`attachment; filename="…"; filename*=UTF-8\'\'…`' },
  'accept-ranges': { type: 'string', description: '`bytes`' },
  etag: { type: 'string', description: "The file's SHA-256 (hex), quoted: a strong validator." },
  'cache-control': { type: 'string', description: '`private, no-store`' },
};

export const DownloadResponses = {
  200: {
    description: "The file's bytes as an attachment under its name, with its Content-Type and Content-Length.",
    headers: fileHeaders,
    content: { 'application/octet-stream': bytes },
  },
  206: {
    description: 'The one range asked for, with `Content-Range: bytes start-end/size`.',
    headers: { ...fileHeaders, 'content-range': { type: 'string' } },
    content: { 'application/octet-stream': bytes },
  },
  302: {
    type: 'null',
    description:
      'Files kept in S3-compatible storage: a redirect to a presigned URL of the object (valid 5 minutes) that answers ' +
      'the bytes with the same attachment disposition. The download is counted at the redirect.',
    headers: { location: { type: 'string', description: 'The presigned URL.' } },
  },
  400: { ...Type.Ref(ErrorEnvelope), description: 'The shop is neither an id nor a subdomain' },
  403: refusal(
    'A tampered or garbled link, or a link of another shop (`forbidden`). Browsers (`Accept: text/html`) get a page, others the envelope.',
  ),
  404: { ...Type.Ref(ErrorEnvelope), description: 'No shop has this subdomain, or the file is gone from storage' },
  410: refusal(
    'The link expired (`link_expired`: the order page gives a fresh one), the download limit is used up ' +
      '(`download_limit_reached`), or the order was refunded (`download_revoked`). Nothing was counted.',
  ),
  416: {
    ...Type.Ref(ErrorEnvelope),
    description: 'The range starts past the end of the file; `Content-Range: bytes */size`. Nothing was counted.',
  },
  429: { ...Type.Ref(ErrorEnvelope), description: 'Rate limited (per client IP, like every public route)' },
};
