import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import sharp, { type SharpOptions } from 'sharp';
import { ErrorEnvelope, ownerResponses } from '../schemas/common.js';
import { AppError, NotFoundError, ValidationError } from './errors.js';

/**
 * Image uploads (contract section 1, "Uploads"): `multipart/form-data` with one part named
 * `file`, recognised by its bytes, re-encoded to drop metadata, stored under a fresh random
 * name and served at `/uploads/<name>`. Owner routes call `receiveImage` and answer
 * `{ url: uploadUrl(name) }`; replacing an image is the caller's job (store, then remove the old).
 */
export type ImageKind = 'image' | 'favicon';

const MULTIPART = 'multipart/form-data';

const contentTypes = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  ico: 'image/x-icon',
} as const;
type Extension = keyof typeof contentTypes;

/** file-type's answer → the extension stored. An APNG is a PNG (sharp keeps its first frame). */
const images: Record<string, Extension> = { png: 'png', apng: 'png', jpg: 'jpg', webp: 'webp', gif: 'gif' };
const accepted: Record<ImageKind, Record<string, Extension>> = { image: images, favicon: { ...images, ico: 'ico' } };
const acceptedNames: Record<ImageKind, string> = {
  image: 'PNG, JPEG, WebP or GIF',
  favicon: 'PNG, JPEG, WebP, GIF or ICO',
};

const sharpFormat = { png: 'png', jpg: 'jpeg', webp: 'webp', gif: 'gif' } as const;

export const UploadResult = Type.Object({
  url: Type.String({ description: 'Where the image is served: /uploads/<name>.' }),
});

/** Spread into an upload route's schema, next to its tags, summary and params. */
export function uploadRouteSchema(kind: ImageKind = 'image') {
  return {
    consumes: [MULTIPART],
    description:
      `Send \`${MULTIPART}\` with one part named \`file\`: a ${acceptedNames[kind]} image, recognised by its bytes ` +
      '(the declared type and file name are ignored), within the upload limit (5 MiB by default) and the pixel limit ' +
      '(24 megapixels by default, all frames of an animation counted; read from the image header, before decoding). ' +
      'The image is re-encoded to drop its metadata (EXIF, GPS); animation is kept. ' +
      'No `file` part: 400 (`file: is required`). Over either limit: 413. A body that is not multipart, or a file that is ' +
      'not an accepted image: 415.',
    response: ownerResponses(UploadResult, [413, 415]),
  };
}

const MultipartImageBody = Type.Object({ file: Type.String({ format: 'binary', description: 'The image.' }) });

/**
 * Upload routes read their multipart body themselves (`receiveImage`), so there is no `body`
 * schema to validate; this adds one to the OpenAPI view of the route only.
 */
export function withMultipartBody(schema: FastifySchema): FastifySchema {
  if (!schema?.consumes?.includes(MULTIPART) || schema.body) return schema;
  return { ...schema, body: MultipartImageBody };
}

/**
 * The sizes an uploaded photo is also served in (`/uploads/<name>/w640.webp`), for `srcset`: widths
 * in pixels (never wider than the original) and the two formats browsers take that are smaller than
 * JPEG and PNG. GIFs (animation) and icons are served only as they were uploaded.
 */
export const VARIANT_WIDTHS = [320, 640, 960, 1280] as const;
export const VARIANT_FORMATS = ['avif', 'webp'] as const;
export type VariantFormat = (typeof VARIANT_FORMATS)[number];
const VARIANT = /^w([0-9]{3,4})\.(avif|webp)$/;
const RESIZABLE = /^\/uploads\/([A-Za-z0-9_-]{10,64}\.(?:png|jpg|webp))$/;

/**
 * The derived copies of an upload URL, for a `<picture>`'s sources: per format, the `srcset`
 * (`/uploads/<name>/w320.avif 320w, …`); undefined when the URL is no resizable upload.
 */
export function imageVariants(url: string | null | undefined): Record<VariantFormat, string> | undefined {
  const match = url ? RESIZABLE.exec(url) : null;
  if (!match) return undefined;
  const srcset = (format: VariantFormat) => VARIANT_WIDTHS.map((w) => `${url}/w${w}.${format} ${w}w`).join(', ');
  return { avif: srcset('avif'), webp: srcset('webp') };
}

export function uploadUrl(name: string): string;
export function uploadUrl(name: string | null): string | null;
export function uploadUrl(name: string | null): string | null {
  return name === null ? null : `/uploads/${name}`;
}

/** Reads the `file` part, checks and cleans the image, stores it and returns its new name. */
export async function receiveImage(request: FastifyRequest, kind: ImageKind = 'image'): Promise<string> {
  const data = await readFilePart(request);
  const detected = await fileTypeFromBuffer(data);
  const extension = detected && accepted[kind][detected.ext];
  if (!extension) throw notAnImage(kind);
  // sharp cannot read ICO; it carries no EXIF, so it is stored as sent.
  const stored =
    extension === 'ico' ? data : await reencode(data, extension, kind, request.server.config.uploadMaxPixels);
  const name = `${randomBytes(18).toString('base64url')}.${extension}`;
  await request.server.storage.put(name, stored);
  return name;
}

function notAnImage(kind: ImageKind): AppError {
  const accepts = acceptedNames[kind];
  return new AppError(415, 'unsupported_media_type', `The file is not a ${accepts} image.`, [
    `file: must be a ${accepts} image`,
  ]);
}

async function readFilePart(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) {
    throw new AppError(415, 'unsupported_media_type', `Send the image as ${MULTIPART} with a part named "file".`, [
      `body: must be ${MULTIPART}`,
    ]);
  }
  let part: Awaited<ReturnType<typeof request.file>>;
  try {
    part = await request.file();
  } catch (err) {
    throw multipartError(request, err as FastifyError);
  }
  if (part?.fieldname !== 'file') throw ValidationError.field('file', 'is required');
  try {
    return await part.toBuffer();
  } catch (err) {
    throw multipartError(request, err as FastifyError);
  }
}

/** The plugin's limit errors and busboy's parse errors, as the contract's answers. */
function multipartError(request: FastifyRequest, err: FastifyError): AppError {
  if (err.code === 'FST_REQ_FILE_TOO_LARGE') {
    const limit = request.server.config.uploadLimitBytes;
    return new AppError(413, 'payload_too_large', `The file is larger than the upload limit of ${limit} bytes.`, [
      `file: must be at most ${limit} bytes`,
    ]);
  }
  if (err.statusCode === 413) {
    return new AppError(413, 'payload_too_large', 'The form has too many parts; send only the file.', [
      'body: has too many parts',
    ]);
  }
  return new ValidationError([`body: is not valid ${MULTIPART}`], `The body is not valid ${MULTIPART}.`);
}

/**
 * Re-encodes in the same format: drops EXIF/GPS and other metadata, applies the orientation.
 *
 * Decoding costs CPU by pixels, not bytes: a 5 KB PNG whose header claims 8000×5000 took 5 s to
 * decode and encode again (issue 36, L9). The dimensions are read from the header first (sharp's
 * `metadata()` decodes no pixels) and an image over UPLOAD_MAX_PIXELS is refused before any
 * decoding; `limitInputPixels` holds sharp to the same bound should the header and the data
 * disagree. Decoding runs one image at a time in this process (`oneDecodeAtATime`), so a burst of
 * uploads waits in line instead of filling libuv's four threads, which file reads, scrypt and DNS
 * lookups share.
 */
async function reencode(
  data: Buffer,
  extension: keyof typeof sharpFormat,
  kind: ImageKind,
  maxPixels: number,
): Promise<Buffer> {
  const options: SharpOptions = { animated: extension === 'gif' || extension === 'webp' };
  let pixels: number;
  try {
    // Without `limitInputPixels`, which would make an image over it "not an image" here.
    const { width = 0, height = 0, pageHeight, pages = 1 } = await sharp(data, options).metadata();
    // An animation decodes every frame: `height` is one frame's, or all of them when `pageHeight` is given.
    pixels = options.animated ? width * (pageHeight ?? height) * pages : width * height;
  } catch {
    throw notAnImage(kind);
  }
  if (pixels > maxPixels) {
    throw new AppError(413, 'payload_too_large', `The image has more than ${maxPixels} pixels; send a smaller one.`, [
      `file: must have at most ${maxPixels} pixels (width × height)`,
    ]);
  }
  return oneDecodeAtATime(async () => {
    try {
      return await sharp(data, { ...options, limitInputPixels: maxPixels })
        .rotate()
        .toFormat(sharpFormat[extension])
        .toBuffer();
    } catch {
      // Valid magic bytes but an undecodable body (truncated, corrupt).
      throw notAnImage(kind);
    }
  });
}

let decoding: Promise<unknown> = Promise.resolve();

/** Runs `work` after every decode started before it has ended (see `reencode`). */
function oneDecodeAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = decoding.then(work, work);
  decoding = turn.catch(() => undefined);
  return turn;
}

function isUploadRoute(request: FastifyRequest): boolean {
  return request.routeOptions.schema?.consumes?.includes(MULTIPART) ?? false;
}

const NameParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: 'The name from an upload URL.' }),
});
const imageBytes = { schema: { type: 'string', format: 'binary' } };
const VariantParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: 'The name from an upload URL.' }),
  variant: Type.String({
    maxLength: 16,
    description: `\`w<width>.<format>\`: a width of ${VARIANT_WIDTHS.join(', ')} and \`avif\` or \`webp\`.`,
  }),
});

/** Encoder settings per format: quality that looks the same as the original on a product card, at a fraction of the bytes. */
const encode = {
  avif: (image: sharp.Sharp) => image.avif({ quality: 55, effort: 3 }),
  webp: (image: sharp.Sharp) => image.webp({ quality: 78 }),
};

/** One derivation per variant at a time in this process: a burst of first requests shares one. */
const deriving = new Map<string, Promise<Buffer | undefined>>();

/** Multipart parsing for upload routes, and the public route that serves what was uploaded. */
export async function registerUploads(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  await app.register(multipart, {
    limits: { fileSize: app.config.uploadLimitBytes, files: 1, fields: 5, parts: 6, fieldSize: 1024 },
  });

  // The multipart parser accepts the body on every route; only upload routes read it.
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart() && !isUploadRoute(request)) {
      throw new AppError(415, 'unsupported_media_type', 'The body must be JSON (Content-Type: application/json).');
    }
  });

  app.get('/uploads/:name', {
    config: { public: true },
    schema: {
      tags: ['Uploads'],
      summary: 'An uploaded image',
      description:
        'The bytes of an uploaded image, with its Content-Type. Names are never reused, so answers are cacheable for ' +
        'a year (`immutable`). An unknown or malformed name is a 404.',
      params: NameParams,
      response: {
        200: {
          description: 'The image.',
          content: Object.fromEntries(Object.values(contentTypes).map((type) => [type, imageBytes])),
        },
        404: { ...Type.Ref(ErrorEnvelope), description: 'No such upload' },
        429: { ...Type.Ref(ErrorEnvelope), description: 'Rate limited' },
      },
    },
    handler: async (request, reply) => {
      const { name } = request.params;
      const file = await app.storage.open(name);
      if (!file) throw new NotFoundError('Upload');
      const extension = name.slice(name.lastIndexOf('.') + 1) as Extension;
      return (
        reply
          .type(contentTypes[extension])
          .header('content-length', file.size)
          .header('cache-control', 'public, max-age=31536000, immutable')
          // The bytes came from a client: browsers must not guess another type from them.
          .header('x-content-type-options', 'nosniff')
          .send(file.stream)
      );
    },
  });

  app.get('/uploads/:name/:variant', {
    config: { public: true },
    schema: {
      tags: ['Uploads'],
      summary: 'An uploaded image in another size and format',
      description:
        `A PNG, JPEG or WebP upload scaled to a width of ${VARIANT_WIDTHS.join(', ')} pixels (never enlarged) and ` +
        'encoded as AVIF or WebP: `/uploads/<name>/w640.webp`. The storefront lists them in `srcset`, so a phone ' +
        'downloads a small file. Made on the first request and kept beside the upload until it is removed; cacheable ' +
        'for a year (`immutable`). Any other width or format, a GIF or icon, or an unknown name: 404.',
      params: VariantParams,
      response: {
        200: {
          description: 'The image.',
          content: { 'image/avif': imageBytes, 'image/webp': imageBytes },
        },
        404: { ...Type.Ref(ErrorEnvelope), description: 'No such upload or variant' },
        429: { ...Type.Ref(ErrorEnvelope), description: 'Rate limited' },
      },
    },
    handler: async (request, reply) => {
      const { name, variant } = request.params;
      const match = VARIANT.exec(variant);
      const width = Number(match?.[1]);
      if (!match || !(VARIANT_WIDTHS as readonly number[]).includes(width) || !RESIZABLE.test(`/uploads/${name}`))
        throw new NotFoundError('Upload');
      const format = match[2] as VariantFormat;
      const bytes = await variantOf(app, name, variant, width, format);
      if (!bytes) throw new NotFoundError('Upload');
      return reply
        .type(`image/${format}`)
        .header('content-length', bytes.length)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(bytes);
    },
  });
}

/**
 * A variant of an upload, made once: read from the storage when it was made before (while the
 * original is there: a removed image's variants are gone with it), else scaled and encoded
 * from the original, one decode at a time (see `reencode`), and kept.
 */
async function variantOf(
  app: FastifyInstance,
  name: string,
  variant: string,
  width: number,
  format: VariantFormat,
): Promise<Buffer | undefined> {
  const kept = await app.storage.readVariant(name, variant);
  if (kept) return kept;
  const key = `${name}/${variant}`;
  let work = deriving.get(key);
  if (!work) {
    work = (async () => {
      const original = await app.storage.open(name);
      if (!original) return undefined;
      const data = await buffer(original.stream);
      const bytes = await oneDecodeAtATime(() =>
        encode[format](
          sharp(data, { limitInputPixels: app.config.uploadMaxPixels }).resize({ width, withoutEnlargement: true }),
        ).toBuffer(),
      );
      await app.storage.putVariant(name, variant, bytes);
      return bytes;
    })().finally(() => deriving.delete(key));
    deriving.set(key, work);
  }
  return work;
}
