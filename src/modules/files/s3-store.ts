import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from '../../config.js';
import { attachmentDisposition, ByteMeter, checkedStorageKey, type FileStore, isStorageKey } from './file-store.js';

export type S3Settings = NonNullable<Config['files']['s3']>;

/** What the store reports without failing the request: a cleanup the bucket's lifecycle rule must finish. */
export type StoreWarning = (err: unknown, message: string) => void;

/**
 * A single upload is sent as a multipart upload of 8 MiB parts, at most 4 in flight: about
 * 40 MiB of memory per upload whatever the file's size (S3's minimum part is 5 MiB; 8 MiB parts
 * reach 80 GB within its 10,000 parts).
 */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

function isNoSuchUpload(err: unknown): boolean {
  return (err as { name?: string }).name === 'NoSuchUpload' || isNotFound(err);
}

/**
 * Files in an S3-compatible bucket under their key. Several instances share it, which is what
 * makes it the storage for more than one instance. Without keys in the settings, the SDK's own
 * chain finds credentials (environment, profile, instance role).
 */
export function createS3FileStore(settings: S3Settings, warn: StoreWarning = () => {}): FileStore {
  const Bucket = settings.bucket;
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials:
      settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
    // Checksums only where S3 requires them: many S3-compatible servers (older MinIO, Ceph, s3rver)
    // refuse the trailing checksums the SDK would otherwise add to every upload.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

  const store: FileStore = {
    kind: 's3',

    async put(key, body, { maxBytes, contentType }) {
      const meter = new ByteMeter({ maxBytes });
      const upload = new Upload({
        client,
        params: { Bucket, Key: checkedStorageKey(key), Body: meter, ContentType: contentType },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      const feeding = pipeline(body, meter);
      // Its failure reaches the upload, which reads the meter; handled below through Promise.all.
      feeding.catch(() => {});
      try {
        await Promise.all([feeding, upload.done()]);
      } catch (err) {
        body.destroy();
        meter.destroy();
        await upload.abort().catch(() => {});
        // The upload aborted its multipart upload (or never sent the single PUT); the object too, to be sure.
        await store.remove(key).catch((e: unknown) => warn(e, 'removing a failed upload from the bucket failed'));
        // Whatever the SDK reported (an abort the server refused, say), a file over the limit is a 413.
        throw meter.failure ?? err;
      }
      return { size: meter.bytes, sha256: meter.sha256() };
    },

    async read(key, range) {
      if (!isStorageKey(key)) return undefined;
      try {
        const object = await client.send(
          new GetObjectCommand({ Bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        );
        return object.Body as Readable;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },

    presignedUrl(key, { fileName, contentType, expiresInSeconds }) {
      const get = new GetObjectCommand({
        Bucket,
        Key: checkedStorageKey(key),
        ResponseContentDisposition: attachmentDisposition(fileName),
        ResponseContentType: contentType,
      });
      return getSignedUrl(client, get, { expiresIn: expiresInSeconds });
    },

    async remove(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: checkedStorageKey(key) }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },

    async beginChunks(key, contentType) {
      const created = await client.send(
        new CreateMultipartUploadCommand({ Bucket, Key: checkedStorageKey(key), ContentType: contentType }),
      );
      if (!created.UploadId) throw new Error('the bucket answered no UploadId');
      return created.UploadId;
    },

    async putChunk(upload, chunk, body) {
      const meter = new ByteMeter({ maxBytes: chunk.bytes, exactBytes: chunk.bytes, hash: false });
      const feeding = pipeline(body, meter);
      feeding.catch(() => {});
      try {
        // Streamed with its length: a chunk that ends short fails the meter, which aborts the request.
        const [, part] = await Promise.all([
          feeding,
          client.send(
            new UploadPartCommand({
              Bucket,
              Key: checkedStorageKey(upload.key),
              UploadId: upload.multipartId ?? undefined,
              PartNumber: chunk.partNumber,
              ContentLength: chunk.bytes,
              Body: meter,
            }),
          ),
        ]);
        if (!part.ETag) throw new Error('the bucket answered no ETag for the part');
        return { partNumber: chunk.partNumber, etag: part.ETag, size: chunk.bytes };
      } catch (err) {
        body.destroy();
        meter.destroy();
        // The meter's verdict first: the SDK may report the request it aborted instead.
        throw meter.failure ?? err;
      }
    },

    async completeChunks(upload, size) {
      const Parts = [...upload.parts]
        .sort((a, b) => a.partNumber - b.partNumber)
        .map((p) => ({ PartNumber: p.partNumber, ETag: p.etag }));
      try {
        await client.send(
          new CompleteMultipartUploadCommand({
            Bucket,
            Key: checkedStorageKey(upload.key),
            UploadId: upload.multipartId ?? undefined,
            MultipartUpload: { Parts },
          }),
        );
      } catch (err) {
        // Completed before (the answer was lost): the object is there.
        if (!isNoSuchUpload(err)) throw err;
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: upload.key })).catch(() => undefined);
        if (head?.ContentLength !== size) throw err;
      }
    },

    async abortChunks(upload) {
      if (!upload.multipartId) return;
      try {
        await client.send(
          new AbortMultipartUploadCommand({ Bucket, Key: checkedStorageKey(upload.key), UploadId: upload.multipartId }),
        );
      } catch (err) {
        if (isNoSuchUpload(err)) return;
        // Not worth failing the owner's request for: the bucket's AbortIncompleteMultipartUpload rule removes the parts.
        warn(err, 'aborting a multipart upload failed; its parts stay until the bucket lifecycle rule removes them');
      }
    },
  };
  return store;
}
