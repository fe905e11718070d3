import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type DownloadBody, PRESIGNED_SECONDS, sendDownload } from './download-reply.js';
import * as schema from './downloads.schema.js';
import { type DownloadOpener, requestDownload } from './downloads.service.js';

const tags = ['Files'];

/** The public download route: what a link in an order's `downloads` opens. */
export const fileDownloadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const deps = { db: ctx.db, links: app.config, log: app.log };

  // On S3 the bucket serves the bytes through a presigned URL; on disk this server streams them.
  const opener: DownloadOpener<DownloadBody> = {
    open: async (file, range) => {
      const store = app.files;
      if (store.presignedUrl) {
        const options = { fileName: file.name, contentType: file.contentType, expiresInSeconds: PRESIGNED_SECONDS };
        return { redirect: await store.presignedUrl(file.storageKey, options) };
      }
      const stream = await store.read(file.storageKey, range);
      return stream && { stream };
    },
    discard: (body) => {
      if ('stream' in body) body.stream.destroy();
    },
  };

  app.route({
    method: ['GET', 'HEAD'],
    url: '/shops/:shopId/downloads/:token',
    config: { public: true },
    schema: {
      tags,
      summary: 'Download a file of an order',
      description:
        "What a link of an order's `downloads` opens (no key: the signed token is the permission). The file is served " +
        'as an attachment under its name with `Accept-Ranges: bytes`, `ETag` (its SHA-256) and `Cache-Control: private, ' +
        "no-store`; on S3 storage it is a 302 to a presigned URL instead. A download counts against the order's limit " +
        'for the file, except a range starting after byte 0 once the file was downloaded (a resumed download), which is ' +
        'served while the link is valid even with the limit used up. Parallel downloads never count past the limit. ' +
        "Expired, used-up, refunded (410) and tampered or other shops' links (403) count nothing and send nothing; " +
        'browsers get a short page saying what to do. HEAD answers the same headers and counts nothing. Every download ' +
        'is logged for the owner (time, IP, user agent, range, bytes sent).',
      params: schema.DownloadParams,
      headers: schema.DownloadHeaders,
      response: schema.DownloadResponses,
    },
    handler: async (request, reply) => {
      const { shopId, token } = request.params;
      const outcome = await requestDownload(
        ctx.db,
        app.secrets,
        {
          shopId,
          token,
          head: request.method === 'HEAD',
          range: request.headers.range,
          ifRange: request.headers['if-range'],
          ip: request.ip,
          userAgent: request.headers['user-agent'],
          redirected: app.files.presignedUrl !== undefined,
        },
        ctx.clock.now(),
        opener,
      );
      return sendDownload(deps, request, reply, shopId, outcome);
    },
  });
};
