import { type Static, Type } from '@sinclair/typebox';
import { CursorPageQuery, Id, Timestamp } from '../../schemas/common.js';

/** File and upload ids: random base64url text. */
export const FileId = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'A file of this shop, as `POST /self/{shopId}/files` answered it.',
});
const UploadId = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'A resumable upload of this shop, as `POST /self/{shopId}/files/uploads` answered it.',
});

export const FileParams = Type.Object({ shopId: Id, fileId: FileId });
export const UploadParams = Type.Object({ shopId: Id, uploadId: UploadId });

/** A `type/subtype` media type, without parameters. */
export const MEDIA_TYPE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$';

export const FileView = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'The file name buyers download it as.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  sha256: Type.String({
    description: 'SHA-256 of the bytes, lower-case hex: what a buyer can check a download against.',
  }),
  contentType: Type.String({
    description:
      'Recognised from the first bytes when the format is known (PDF, ZIP, images, audio, video, …), else the type the upload declared, else `application/octet-stream`.',
  }),
  createdAt: Timestamp,
});
export type FileView = Static<typeof FileView>;

export const FileListQuery = CursorPageQuery;
export type FileListQuery = Static<typeof FileListQuery>;

export const DeletedFile = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const StartUploadBody = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 1000,
    description:
      'The file name. Any path is dropped and control characters removed; at most 255 characters are kept. Nothing left: 400.',
  }),
  size: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'The whole file in bytes; over the file limit (FILE_MAX_BYTES, 2 GiB by default): 413.',
  }),
  contentType: Type.Optional(
    Type.String({
      pattern: MEDIA_TYPE_PATTERN,
      maxLength: 255,
      description:
        'The declared media type, used when the first bytes are of no known format; default `application/octet-stream`.',
    }),
  ),
});
export type StartUploadBody = Static<typeof StartUploadBody>;

export const UploadProgress = Type.Object({
  id: Type.String({ description: 'The upload; the file it completes to gets the same id.' }),
  name: Type.String(),
  size: Type.Integer({ description: 'Bytes of the whole file.' }),
  received: Type.Integer({ description: 'Bytes received so far: the `Upload-Offset` of the next chunk.' }),
  chunkBytes: Type.Integer({
    description:
      'Every chunk but the last has exactly this many bytes (8 MiB, more for files over 80 GB); the last has the rest.',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type UploadProgress = Static<typeof UploadProgress>;

export const ChunkHeaders = Type.Object({
  'upload-offset': Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Where this chunk starts in the file: the `received` the upload answered last.',
  }),
});

/**
 * The chunk's bytes, read by the handler as a stream (not validated). Documented as
 * `application/octet-stream`; the route's content-type parser hands the request stream over.
 */
export const ChunkBody = Type.Unsafe<unknown>({
  description: 'The chunk: `application/octet-stream`, exactly the bytes from `Upload-Offset` on.',
});
