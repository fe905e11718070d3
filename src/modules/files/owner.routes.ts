import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { CursorPage, Envelope, ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import { receiveFilePart } from './intake.js';
import * as schema from './schema.js';
import * as service from './service.js';
import * as uploads from './upload.service.js';

const tags = ['Files'];
const MULTIPART = 'multipart/form-data';
const OCTET_STREAM = 'application/octet-stream';
/**
 * `/files/{fileId}`, where `fileId` is never `uploads`: `/files/uploads` is the resumable uploads'
 * path, and the router must not count the file routes' methods as answered there (a 405's Allow).
 */
const FILE_PATH = '/:shopId/files/:fileId(^(?!uploads$).+$)';

/** An owner route's responses with `201` (created) in place of `200`, or beside it. */
function createdResponses<T extends TSchema>(created: T, extra: number[], progress?: TSchema) {
  const { 200: _ok, ...errors } = ownerResponses(created, extra);
  return {
    ...(progress ? { 200: { ...Envelope(progress), description: 'The chunk counted; more to send.' } } : {}),
    201: { ...Envelope(created), description: 'The file, stored.' },
    ...errors,
  };
}

const limits =
  'The limit is FILE_MAX_BYTES (2 GiB by default): a larger file is a 413 and nothing is stored. The bytes are streamed to the store (local disk or S3) and hashed on the way, never held in memory.';

export const fileOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  // Chunks of resumable uploads: the handler streams the request itself (this plugin's routes only).
  app.addContentTypeParser(OCTET_STREAM, (_request, payload, done) => done(null, payload));
  // A streamed body the answer came before the end of (a refusal): the connection is not reused.
  app.addHook('onError', async (request, reply, error) => {
    if (request.isMultipart() || request.body instanceof Readable) void reply.header('connection', 'close');
    if (error instanceof uploads.UploadOffsetConflict) void reply.header('upload-offset', String(error.received));
  });

  app.post('/:shopId/files', {
    schema: {
      tags,
      summary: 'Upload a file',
      description: `Send \`${MULTIPART}\` with one part named \`file\`; its filename (path dropped, control characters removed, at most 255 characters) is the name buyers download it as, and is required. ${limits} An empty file or a missing name is a 400; a body that is not multipart a 415. For large files, resumable uploads (\`POST /self/{shopId}/files/uploads\`) survive a broken connection.`,
      consumes: [MULTIPART],
      params: ShopParams,
      response: createdResponses(schema.FileView, [413, 415]),
    },
    handler: async (request, reply) => {
      const file = await receiveFilePart(request, ctx.config.files.maxBytes);
      const stored = await service.storeUpload(ctx, app.files, currentShop(request).id, file);
      return reply.code(201).send(ok(stored));
    },
  });

  app.get('/:shopId/files', {
    schema: {
      tags,
      summary: 'List files',
      description:
        'Newest first (createdAt, then id). `searchString` matches the name. Keyset `cursor` paging: pass `nextCursor` to get the next page.',
      params: ShopParams,
      querystring: schema.FileListQuery,
      response: ownerResponses(CursorPage(schema.FileView)),
    },
    handler: async (request) => ok(await service.listFiles(ctx, currentShop(request).id, request.query)),
  });

  app.get(FILE_PATH, {
    schema: {
      tags,
      summary: 'Get one file',
      params: schema.FileParams,
      response: ownerResponses(schema.FileView),
    },
    handler: async (request) => ok(await service.getFile(ctx, currentShop(request).id, request.params.fileId)),
  });

  app.delete(FILE_PATH, {
    schema: {
      tags,
      summary: 'Delete a file',
      description:
        'Deletes the file and its bytes. Refused (409, naming the variants) while a product variant delivers it: take it out of `asFile.fileIds` first. Past orders of it lose their download links.',
      params: schema.FileParams,
      response: ownerResponses(schema.DeletedFile, [409]),
    },
    handler: async (request) =>
      ok(await service.deleteFile(ctx, app.files, currentShop(request).id, request.params.fileId)),
  });

  app.post('/:shopId/files/uploads', {
    schema: {
      tags,
      summary: 'Start a resumable upload',
      description: `Announces a file to send in chunks: its name, size and (optionally) media type. Answers the upload's progress: \`received\` (0) is the offset of the first chunk, \`chunkBytes\` the length of every chunk but the last. ${limits} An upload untouched for 24 hours is dropped.`,
      params: ShopParams,
      body: schema.StartUploadBody,
      response: ownerResponses(schema.UploadProgress, [413]),
    },
    handler: async (request) => ok(await uploads.startUpload(ctx, app.files, currentShop(request).id, request.body)),
  });

  app.get('/:shopId/files/uploads/:uploadId', {
    schema: {
      tags,
      summary: 'Get an upload’s progress',
      description:
        'How many bytes arrived (`received`): after a broken connection, resume by sending the chunk that starts there. A completed upload is no longer here (404): it is the file with the same id.',
      params: schema.UploadParams,
      response: ownerResponses(schema.UploadProgress),
    },
    handler: async (request) => ok(await uploads.uploadProgress(ctx, currentShop(request).id, request.params.uploadId)),
  });

  app.put('/:shopId/files/uploads/:uploadId', {
    schema: {
      tags,
      summary: 'Send a chunk of an upload',
      description:
        '`Upload-Offset` says where the chunk starts; it must be the upload’s `received` (else 409 with the right offset in the `Upload-Offset` header and the message, and nothing changes). The body, `application/octet-stream`, is exactly `chunkBytes` bytes, or the rest of the file for the last chunk (else 400, and the chunk does not count: send it again). Answers the progress (200) until the last chunk, which completes the upload: 201 with the file, its id the upload’s. If that answer is lost, the upload’s progress is a 404 and the file is there; if completing failed, send an empty body at the offset equal to the size to complete it again.',
      consumes: [OCTET_STREAM],
      params: schema.UploadParams,
      headers: schema.ChunkHeaders,
      body: schema.ChunkBody,
      response: createdResponses(schema.FileView, [409, 415], schema.UploadProgress),
    },
    handler: async (request, reply) => {
      const length = request.headers['content-length'];
      const result = await uploads.receiveChunk(
        ctx,
        app.files,
        currentShop(request).id,
        request.params.uploadId,
        {
          offset: request.headers['upload-offset'],
          contentLength: length === undefined ? undefined : Number(length),
          octetStream: request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === OCTET_STREAM,
        },
        request.body instanceof Readable ? request.body : undefined,
      );
      if (!result.complete)
        return reply.header('upload-offset', String(result.upload.received)).send(ok(result.upload));
      return reply.code(201).send(ok(result.file));
    },
  });

  app.delete('/:shopId/files/uploads/:uploadId', {
    schema: {
      tags,
      summary: 'Abort an upload',
      description: 'Drops the upload in progress and the bytes it received.',
      params: schema.UploadParams,
      response: ownerResponses(schema.DeletedFile),
    },
    handler: async (request) =>
      ok(await uploads.abortUpload(ctx, app.files, currentShop(request).id, request.params.uploadId)),
  });
};
