import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { attachedFiles, attachFiles, detachFiles } from '../../src/modules/files/index.js';
import { build, type Client, owner, type Reply } from './build.js';
import { TestClock } from './clock.js';
import { assertError, assertOk, createShop } from './factories.js';
import { multipartForm } from './multipart.js';
import { s3Keys, s3rver } from './s3rver.js';

/** Where a test's files go: the app's disk (DATA_DIR/files) or a test S3 server. */
export interface FileBackend {
  name: 'disk' | 's3';
  /** The environment to build the app with. */
  env(t: TestContext): Promise<Record<string, string>>;
}

export const diskBackend: FileBackend = { name: 'disk', env: async () => ({}) };
export const s3Backend: FileBackend = { name: 's3', env: (t) => s3rver(t) };

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Everything the store holds: finished objects, and on disk also what is being written (`.partial/…`). */
export async function storedObjects(app: FastifyInstance): Promise<string[]> {
  if (app.files.kind === 'disk') {
    const dir = join(app.config.dataDir, 'files');
    const finished = readdirSync(dir).filter((name) => name !== '.partial');
    const partial = readdirSync(join(dir, '.partial')).map((name) => `.partial/${name}`);
    return [...finished, ...partial].sort();
  }
  const s3 = app.config.files.s3!;
  return s3Keys({
    FILES_S3_BUCKET: s3.bucket,
    FILES_S3_ENDPOINT: s3.endpoint!,
    FILES_S3_REGION: s3.region,
    FILES_S3_ACCESS_KEY_ID: s3.accessKeyId!,
    FILES_S3_SECRET_ACCESS_KEY: s3.secretAccessKey!,
    FILES_S3_FORCE_PATH_STYLE: 'true',
  });
}

/** The bytes stored for a file, read back through the app's store. */
export async function storedBytes(app: FastifyInstance, fileId: string): Promise<Buffer> {
  const row = await app.db.kysely
    .selectFrom('files')
    .select('storage_key')
    .where('id', '=', fileId)
    .executeTakeFirstOrThrow();
  const stream = await app.files.read(row.storage_key);
  assert.ok(stream, 'the stored object exists');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Deterministic bytes that no format detector recognises (a repeating counter). */
export function plainBytes(length: number, seed = 7): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

/** POST one multipart body to the files route. */
async function postForm(app: FastifyInstance, api: Client, shopId: number, form: ReturnType<typeof multipartForm>) {
  const res = await app.inject({
    method: 'POST',
    url: `/self/${shopId}/files`,
    payload: form.payload,
    headers: { authorization: `Bearer ${api.key}`, ...form.headers },
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers } as Reply;
}

/** A chunk of a resumable upload, as `PUT …/files/uploads/{id}`. */
export async function putChunk(
  app: FastifyInstance,
  api: Client,
  url: string,
  offset: number,
  body: Buffer | Readable,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await app.inject({
    method: 'PUT',
    url,
    payload: body,
    headers: {
      authorization: `Bearer ${api.key}`,
      'content-type': 'application/octet-stream',
      'upload-offset': String(offset),
      ...headers,
    },
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers as Reply['headers'] };
}

/** Sends `bytes` through a resumable upload from start to end; answers the last reply (the file). */
export async function uploadInChunks(app: FastifyInstance, api: Client, shopId: number, name: string, bytes: Buffer) {
  const started = assertOk(await api.post(`/self/${shopId}/files/uploads`, { name, size: bytes.length }));
  let reply: Reply | undefined;
  for (let offset = 0; offset < bytes.length; offset += started.chunkBytes) {
    const chunk = bytes.subarray(offset, offset + started.chunkBytes);
    reply = await putChunk(app, api, `/self/${shopId}/files/uploads/${started.id}`, offset, chunk);
  }
  return { started, reply: reply! };
}

/**
 * The owner's file API, the same on both stores: test/modules/files.test.ts runs it on disk,
 * test/modules/files-s3.test.ts against a real S3-compatible server.
 */
export function fileBehaviours(backend: FileBackend): void {
  const setup = async (t: TestContext, env: Record<string, string> = {}, clock?: TestClock) => {
    const app = await build(t, { ...(await backend.env(t)), ...env }, { clock });
    const api = await owner(app);
    const shop = await createShop(api, 'File Shop');
    return { app, api, shopId: shop.id };
  };
  const fileRows = (app: FastifyInstance) => app.db.kysely.selectFrom('files').selectAll().execute();

  test(`${backend.name}: an upload is stored whole, hashed, typed by its bytes, listed, read and deleted`, async (t) => {
    const { app, api, shopId } = await setup(t);
    const res = await api.upload(`/self/${shopId}/files`, PDF, 'Übung 1.pdf');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const file = res.body.data;
    assert.deepEqual(Object.keys(file).sort(), ['contentType', 'createdAt', 'id', 'name', 'sha256', 'size']);
    assert.equal(file.name, 'Übung 1.pdf');
    assert.equal(file.size, PDF.length);
    assert.equal(file.sha256, sha256(PDF));
    assert.equal(file.contentType, 'application/pdf', 'recognised by its bytes, not the declared octet-stream');
    assert.match(file.id, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(await storedBytes(app, file.id), PDF);
    const [row] = await fileRows(app);
    assert.equal(row?.storage, backend.name);

    const list = assertOk(await api.get(`/self/${shopId}/files`));
    assert.deepEqual(list.items, [file]);
    assert.equal(list.totalCount, 1);
    assert.equal(list.nextCursor, null);
    assert.deepEqual(assertOk(await api.get(`/self/${shopId}/files/${file.id}`)), file);

    assert.deepEqual(assertOk(await api.delete(`/self/${shopId}/files/${file.id}`)), { id: file.id, deleted: true });
    assertError(await api.get(`/self/${shopId}/files/${file.id}`), 404, 'not_found');
    assert.deepEqual(await storedObjects(app), [], 'the bytes went with the row');
    assertError(await api.delete(`/self/${shopId}/files/${file.id}`), 404, 'not_found');
  });

  test(`${backend.name}: names are cleaned, the declared type is the fallback, lists page newest first`, async (t) => {
    const clock = new TestClock();
    const { app, api, shopId } = await setup(t, {}, clock);
    const upload = async (data: Buffer, filename: string, type?: string) => {
      clock.advance(1000);
      return postForm(app, api, shopId, multipartForm([{ name: 'file', data, filename, type }]));
    };
    const csv = await upload(Buffer.from('a,b\n1,2\n'), 'dir\\sub/re\u202Eport\u0007.csv', 'text/csv; charset=utf-8');
    assert.equal(csv.status, 201, JSON.stringify(csv.body));
    assert.equal(csv.body.data.name, 'report.csv');
    assert.equal(csv.body.data.contentType, 'text/csv');
    const odd = await upload(plainBytes(3000), `${'x'.repeat(300)}.bin`, 'not a type');
    assert.equal(odd.status, 201, JSON.stringify(odd.body));
    assert.equal(odd.body.data.contentType, 'application/octet-stream');
    assert.equal([...odd.body.data.name].length, 255);
    const third = await upload(plainBytes(10, 3), 'third.dat', 'application/x-thing');
    assert.equal(third.body.data.contentType, 'application/x-thing');

    const first = assertOk(await api.get(`/self/${shopId}/files?pageSize=2`));
    assert.deepEqual(
      first.items.map((f: { id: string }) => f.id),
      [third.body.data.id, odd.body.data.id],
    );
    assert.equal(first.totalCount, 3);
    const rest = assertOk(await api.get(`/self/${shopId}/files?pageSize=2&cursor=${first.nextCursor}`));
    assert.deepEqual(
      rest.items.map((f: { id: string }) => f.id),
      [csv.body.data.id],
    );
    assert.equal(rest.nextCursor, null);
    const found = assertOk(await api.get(`/self/${shopId}/files?searchString=REPORT`));
    assert.deepEqual(
      found.items.map((f: { name: string }) => f.name),
      ['report.csv'],
    );
    assertError(await api.get(`/self/${shopId}/files?cursor=nonsense`), 400, 'validation_error');
  });

  test(`${backend.name}: bad uploads change nothing: too large, no file, empty, no name, not multipart`, async (t) => {
    const { app, api, shopId } = await setup(t, { FILE_MAX_BYTES: '20000' });
    const tooLarge = await api.upload(`/self/${shopId}/files`, plainBytes(20001), 'big.bin');
    assertError(tooLarge, 413, 'payload_too_large');
    assert.match(tooLarge.body.message, /20000 bytes/);
    // Past one S3 part too: the multipart upload is aborted, not completed.
    const { app: big, api: bigApi, shopId: bigShop } = await setup(t, { FILE_MAX_BYTES: String(9 * 1024 * 1024) });
    assertError(
      await bigApi.upload(`/self/${bigShop}/files`, plainBytes(10 * 1024 * 1024), 'big.bin'),
      413,
      'payload_too_large',
    );
    assert.deepEqual(await fileRows(big), []);
    assert.deepEqual(await storedObjects(big), []);

    const exact = await api.upload(`/self/${shopId}/files`, plainBytes(20000), 'exact.bin');
    assert.equal(exact.status, 201, 'exactly the limit is allowed');
    assertOk(await api.delete(`/self/${shopId}/files/${exact.body.data.id}`));

    const noFile = await postForm(app, api, shopId, multipartForm([{ name: 'other', data: 'x', filename: 'a.txt' }]));
    assertError(noFile, 400, 'validation_error');
    assert.deepEqual(noFile.body.errors, ['file: is required']);
    const field = await postForm(app, api, shopId, multipartForm([{ name: 'file', data: 'just a field' }]));
    assertError(field, 400, 'validation_error');
    const empty = await postForm(app, api, shopId, multipartForm([{ name: 'file', data: '', filename: 'e.txt' }]));
    assertError(empty, 400, 'validation_error');
    assert.deepEqual(empty.body.errors, ['file: is empty']);
    const unnamed = await postForm(app, api, shopId, multipartForm([{ name: 'file', data: 'x', filename: '\u0001/' }]));
    assertError(unnamed, 400, 'validation_error');
    assertError(await api.post(`/self/${shopId}/files`, { file: 'x' }), 415, 'unsupported_media_type');
    const broken = await app.inject({
      method: 'POST',
      url: `/self/${shopId}/files`,
      payload: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\nabc',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'multipart/form-data; boundary=b' },
    });
    assert.ok([400, 413].includes(broken.statusCode) && broken.statusCode < 500, broken.body);

    assert.deepEqual(await fileRows(app), []);
    assert.deepEqual(await storedObjects(app), []);
  });

  test(`${backend.name}: another shop's file is a 404; an attached file cannot be deleted`, async (t) => {
    const { app, api, shopId } = await setup(t);
    const other = await createShop(api, 'Other Shop');
    const stranger = await owner(app);
    const file = (await api.upload(`/self/${shopId}/files`, PDF, 'book.pdf')).body.data;
    const second = (await api.upload(`/self/${shopId}/files`, plainBytes(100), 'extra.bin')).body.data;
    assertError(await api.get(`/self/${other.id}/files/${file.id}`), 404, 'not_found');
    assertError(await api.delete(`/self/${other.id}/files/${file.id}`), 404, 'not_found');
    assert.deepEqual(assertOk(await api.get(`/self/${other.id}/files`)).items, []);
    assert.equal((await stranger.get(`/self/${shopId}/files/${file.id}`)).status, 404);

    const db = app.db.kysely;
    await attachFiles(db, shopId, 9001, [second.id, file.id]);
    await assert.rejects(
      attachFiles(db, other.id, 9002, [file.id]),
      (err: { statusCode: number; errors: string[] }) => {
        assert.equal(err.statusCode, 400);
        assert.deepEqual(err.errors, [`fileIds: ${file.id} is not a file of this shop`]);
        return true;
      },
    );
    const attached = await attachedFiles(db, shopId, [9001, 9002]);
    assert.deepEqual(
      attached.get(9001)?.map((f) => f.name),
      ['extra.bin', 'book.pdf'],
      'in the order given',
    );
    assert.equal(attached.has(9002), false);
    assert.deepEqual(attached.get(9001)?.[1], {
      id: file.id,
      name: 'book.pdf',
      size: file.size,
      sha256: file.sha256,
      contentType: 'application/pdf',
    });

    const refused = await api.delete(`/self/${shopId}/files/${file.id}`);
    assertError(refused, 409, 'conflict');
    assert.match(refused.body.message, /attached to a product variant/);
    assert.deepEqual(refused.body.errors, ['fileId: is attached to variant 9001']);
    assert.deepEqual(await storedBytes(app, file.id), PDF, 'kept whole');

    await detachFiles(db, shopId, [9001]);
    assertOk(await api.delete(`/self/${shopId}/files/${file.id}`));
    assert.equal((await storedObjects(app)).length, 1);
  });

  test(`${backend.name}: a resumable upload takes chunks in order, refuses wrong offsets and lengths, resumes after a cut`, async (t) => {
    const { app, api, shopId } = await setup(t);
    const MiB = 1024 * 1024;
    const bytes = Buffer.concat([PDF, plainBytes(2 * 8 * MiB + 12345 - PDF.length)]);
    const started = assertOk(
      await api.post(`/self/${shopId}/files/uploads`, { name: 'big/manual.pdf', size: bytes.length }),
    );
    assert.equal(started.received, 0);
    assert.equal(started.chunkBytes, 8 * MiB);
    assert.equal(started.name, 'manual.pdf');
    const url = `/self/${shopId}/files/uploads/${started.id}`;
    const progress = async () => assertOk(await api.get(url)).received;

    const ahead = await putChunk(app, api, url, 8 * MiB, bytes.subarray(8 * MiB, 16 * MiB));
    assertError(ahead, 409, 'conflict');
    assert.equal(ahead.headers['upload-offset'], '0');
    assert.match(ahead.body.message, /received 0 bytes/);
    assertError(await putChunk(app, api, url, 0, bytes.subarray(0, 1000)), 400, 'validation_error');
    assertError(
      await putChunk(app, api, url, 0, bytes.subarray(0, 8 * MiB), { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    assert.equal(await progress(), 0);

    const first = await putChunk(app, api, url, 0, bytes.subarray(0, 8 * MiB));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.received, 8 * MiB);
    assert.equal(first.headers['upload-offset'], String(8 * MiB));
    // The same chunk again (a retry whose first answer was lost): the upload has moved on.
    assertError(await putChunk(app, api, url, 0, bytes.subarray(0, 8 * MiB)), 409, 'conflict');

    // The connection breaks half-way through the second chunk: its body ends short of its length.
    const cut = Readable.from([bytes.subarray(8 * MiB, 12 * MiB)]);
    const broken = await putChunk(app, api, url, 8 * MiB, cut, { 'content-length': String(8 * MiB) });
    assert.ok(broken.status === 400 || broken.status >= 400, `a cut chunk fails: ${broken.status}`);
    assert.equal(await progress(), 8 * MiB, 'the cut chunk did not count');
    const second = await putChunk(app, api, url, 8 * MiB, bytes.subarray(8 * MiB, 16 * MiB));
    assert.equal(second.body.data.received, 16 * MiB);
    assertError(
      await putChunk(app, api, url, 16 * MiB, bytes.subarray(16 * MiB, 16 * MiB + 100)),
      400,
      'validation_error',
    );

    const last = await putChunk(app, api, url, 16 * MiB, bytes.subarray(16 * MiB));
    assert.equal(last.status, 201, JSON.stringify(last.body));
    const file = last.body.data;
    assert.equal(file.id, started.id);
    assert.equal(file.name, 'manual.pdf');
    assert.equal(file.size, bytes.length);
    assert.equal(file.sha256, sha256(bytes));
    assert.equal(file.contentType, 'application/pdf');
    assert.ok((await storedBytes(app, file.id)).equals(bytes));
    assertError(await api.get(url), 404, 'not_found');
    assertError(await putChunk(app, api, url, bytes.length, Buffer.alloc(0)), 404, 'not_found');
    assert.deepEqual(assertOk(await api.get(`/self/${shopId}/files/${file.id}`)), file);
    assert.deepEqual(await storedObjects(app), [(await fileRows(app))[0]!.storage_key]);
  });

  test(`${backend.name}: a small resumable upload, an aborted one, one too large, one of another shop, and the sweep`, async (t) => {
    const clock = new TestClock();
    const { app, api, shopId } = await setup(t, { FILE_MAX_BYTES: String(20 * 1024 * 1024) }, clock);
    const bytes = plainBytes(5000);
    const { started, reply } = await uploadInChunks(app, api, shopId, 'notes.txt', bytes);
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.equal(reply.body.data.id, started.id);
    assert.equal(reply.body.data.sha256, sha256(bytes));
    assert.equal(reply.body.data.contentType, 'application/octet-stream');

    assertError(
      await api.post(`/self/${shopId}/files/uploads`, { name: 'huge.iso', size: 20 * 1024 * 1024 + 1 }),
      413,
      'payload_too_large',
    );
    assertError(await api.post(`/self/${shopId}/files/uploads`, { name: '\u0000', size: 10 }), 400, 'validation_error');
    assertError(await api.post(`/self/${shopId}/files/uploads`, { name: '/', size: 10 }), 400, 'validation_error');
    assertError(await api.post(`/self/${shopId}/files/uploads`, { name: 'x', size: 0 }), 400, 'validation_error');

    const typed = assertOk(
      await api.post(`/self/${shopId}/files/uploads`, {
        name: 'data.json',
        size: 9 * 1024 * 1024,
        contentType: 'application/json',
      }),
    );
    const url = `/self/${shopId}/files/uploads/${typed.id}`;
    assert.equal((await putChunk(app, api, url, 0, plainBytes(8 * 1024 * 1024))).status, 200);
    const other = await createShop(api, 'Other Shop');
    assertError(await api.get(`/self/${other.id}/files/uploads/${typed.id}`), 404, 'not_found');
    assertError(
      await putChunk(app, api, `/self/${other.id}/files/uploads/${typed.id}`, 0, Buffer.alloc(1)),
      404,
      'not_found',
    );
    assertError(await api.delete(`/self/${other.id}/files/uploads/${typed.id}`), 404, 'not_found');
    assert.deepEqual(assertOk(await api.delete(url)), { id: typed.id, deleted: true });
    assertError(await api.get(url), 404, 'not_found');

    const abandoned = assertOk(await api.post(`/self/${shopId}/files/uploads`, { name: 'later.bin', size: 100 }));
    assert.equal(
      (await putChunk(app, api, `/self/${shopId}/files/uploads/${abandoned.id}`, 0, plainBytes(50))).status,
      400,
    );
    clock.advance(23 * 60 * 60 * 1000);
    assert.equal(await app.jobs.runOnce('file-upload-sweep'), 0, 'not yet a day old');
    clock.advance(2 * 60 * 60 * 1000);
    assert.equal(await app.jobs.runOnce('file-upload-sweep'), 1);
    assertError(await api.get(`/self/${shopId}/files/uploads/${abandoned.id}`), 404, 'not_found');

    const rows = await fileRows(app);
    assert.deepEqual(
      rows.map((r) => r.name),
      ['notes.txt'],
    );
    assert.deepEqual(await storedObjects(app), [rows[0]!.storage_key], 'aborted and swept uploads left nothing');
  });
}
