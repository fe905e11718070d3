import { strings } from '../strings';
import { ApiError, answeredUnauthorized, api, unwrap, writeHeaders } from './client';
import type { ShopFile } from './queries/files';
import type { Answer } from './types';

/**
 * Sending files to the shop (docs/api/files.md), with the progress of the bytes: a small file in
 * one multipart `POST /self/{shopId}/files`, a large one through a resumable upload, in chunks
 * `PUT` at their offset. XMLHttpRequest, not fetch: only it reports an upload's progress.
 *
 * A resumable upload's id is kept in localStorage with the file's name, size and modification
 * time, so choosing the same file again (after a dropped connection, or a reload) continues from
 * the bytes the server has.
 */

/** Files larger than this go through a resumable upload. */
export const CHUNKED_FROM = 16 * 1024 * 1024;

export type UploadProgress = Answer<'/self/{shopId}/files/uploads', 'post'>;

/** The connection dropped (or the server could not be reached): the upload can be resumed. */
export class NetworkError extends Error {
  constructor() {
    super(strings.common.theConnectionWasLost);
  }
}

/** The owner cancelled. */
export class UploadAborted extends Error {
  constructor() {
    super('Cancelled.');
  }
}

interface Answered {
  status: number;
  body: { data?: unknown; message?: string; errors?: string[]; code?: string } | null;
  header: (name: string) => string | null;
}

/** One request with XMLHttpRequest: its upload progress reported, abortable through `signal`. */
function send(
  method: string,
  url: string,
  body: XMLHttpRequestBodyInit | null,
  headers: Record<string, string>,
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
): Promise<Answered> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UploadAborted());
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries({ ...headers, ...writeHeaders() })) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    // An abort the owner asked for is a cancel; one the network caused is a lost connection.
    let cancelled = false;
    const abort = () => {
      cancelled = true;
      xhr.abort();
    };
    signal.addEventListener('abort', abort, { once: true });
    xhr.onabort = () => reject(cancelled ? new UploadAborted() : new NetworkError());
    xhr.onerror = () => reject(new NetworkError());
    xhr.ontimeout = () => reject(new NetworkError());
    xhr.onload = () => {
      signal.removeEventListener('abort', abort);
      let parsed: Answered['body'] = null;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        parsed = null;
      }
      if (xhr.status === 401) answeredUnauthorized();
      resolve({ status: xhr.status, body: parsed, header: (name) => xhr.getResponseHeader(name) });
    };
    xhr.send(body);
  });
}

const failure = (answer: Answered) => new ApiError(answer.status, (answer.body ?? undefined) as never);

/** Sends a small file in one multipart request; `onProgress` gets the bytes sent. */
export async function uploadWhole(
  shopId: number,
  file: File,
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<ShopFile> {
  const form = new FormData();
  form.append('file', file, file.name);
  const answer = await send(
    'POST',
    `/self/${shopId}/files`,
    form,
    {},
    // The multipart body is a little larger than the file: its part headers.
    (loaded) => onProgress(Math.min(loaded, file.size)),
    signal,
  );
  if (answer.status !== 201 && answer.status !== 200) throw failure(answer);
  return answer.body!.data as ShopFile;
}

// --- resumable uploads ---------------------------------------------------------------------------

/** What is kept of a resumable upload between page loads. */
export interface StoredUpload {
  uploadId: string;
  name: string;
  size: number;
  lastModified: number;
  startedAt: string;
}

const storageKey = (shopId: number) => `shopd-admin:uploads:${shopId}`;

export function storedUploads(shopId: number): StoredUpload[] {
  try {
    const value = JSON.parse(localStorage.getItem(storageKey(shopId)) ?? '[]');
    return Array.isArray(value) ? (value as StoredUpload[]) : [];
  } catch {
    return [];
  }
}

function saveStored(shopId: number, uploads: StoredUpload[]): void {
  try {
    if (uploads.length === 0) localStorage.removeItem(storageKey(shopId));
    else localStorage.setItem(storageKey(shopId), JSON.stringify(uploads));
  } catch {
    // No storage (private mode, full): the upload still runs, it just cannot be resumed after a reload.
  }
}

export function forgetUpload(shopId: number, uploadId: string): void {
  saveStored(
    shopId,
    storedUploads(shopId).filter((u) => u.uploadId !== uploadId),
  );
}

const sameFile = (stored: StoredUpload, file: File) =>
  stored.name === file.name && stored.size === file.size && stored.lastModified === file.lastModified;

/** The unfinished upload of this very file, if one was started here. */
export function storedUploadOf(shopId: number, file: File): StoredUpload | undefined {
  return storedUploads(shopId).find((u) => sameFile(u, file));
}

export function isSameFile(stored: StoredUpload, file: File): boolean {
  return sameFile(stored, file);
}

/** An upload's progress on the server; undefined when it is not there (completed, expired or aborted). */
export async function serverProgress(shopId: number, uploadId: string): Promise<UploadProgress | undefined> {
  try {
    return await unwrap(api.GET('/self/{shopId}/files/uploads/{uploadId}', { params: { path: { shopId, uploadId } } }));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Drops an unfinished upload on the server (and here). */
export async function abortUpload(shopId: number, uploadId: string): Promise<void> {
  forgetUpload(shopId, uploadId);
  try {
    await unwrap(api.DELETE('/self/{shopId}/files/uploads/{uploadId}', { params: { path: { shopId, uploadId } } }));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
}

/** A media type the API takes as declared (`type/subtype`, no parameters); else none is sent. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/**
 * Sends a file through a resumable upload, continuing the one stored for it when the server still
 * has it. `onStart` gets the upload's id and where it starts; `onProgress` the bytes the server
 * has plus those of the chunk on its way.
 */
export async function uploadInChunks(
  shopId: number,
  file: File,
  handlers: { onStart: (uploadId: string, received: number) => void; onProgress: (sent: number) => void },
  signal: AbortSignal,
): Promise<ShopFile> {
  let progress: UploadProgress | undefined;
  const stored = storedUploadOf(shopId, file);
  if (stored) {
    progress = await serverProgress(shopId, stored.uploadId);
    if (!progress) {
      forgetUpload(shopId, stored.uploadId);
      // Its last chunk may have completed it with the answer lost: the file then has its id.
      const done = await unwrap(
        api.GET('/self/{shopId}/files/{fileId}', { params: { path: { shopId, fileId: stored.uploadId } } }),
      ).catch(() => undefined);
      if (done) return done;
    }
  }
  if (!progress) {
    progress = await unwrap(
      api.POST('/self/{shopId}/files/uploads', {
        params: { path: { shopId } },
        body: { name: file.name, size: file.size, ...(MEDIA_TYPE.test(file.type) ? { contentType: file.type } : {}) },
      }),
    );
    if (signal.aborted) {
      // Cancelled while the upload was being created: nothing of it is kept.
      await abortUpload(shopId, progress.id).catch(() => undefined);
      throw new UploadAborted();
    }
    saveStored(shopId, [
      ...storedUploads(shopId).filter((u) => !sameFile(u, file)),
      {
        uploadId: progress.id,
        name: file.name,
        size: file.size,
        lastModified: file.lastModified,
        startedAt: new Date().toISOString(),
      },
    ]);
  }
  const uploadId = progress.id;
  const { chunkBytes } = progress;
  let offset = progress.received;
  handlers.onStart(uploadId, offset);
  handlers.onProgress(offset);
  // A 409 names the right offset; twice in a row at the same one would be a loop.
  let conflicts = 0;
  for (;;) {
    const end = Math.min(offset + chunkBytes, file.size);
    const from = offset;
    const answer = await send(
      'PUT',
      `/self/${shopId}/files/uploads/${encodeURIComponent(uploadId)}`,
      file.slice(from, end),
      { 'content-type': 'application/octet-stream', 'upload-offset': String(from) },
      (loaded) => handlers.onProgress(from + Math.min(loaded, end - from)),
      signal,
    );
    if (answer.status === 201) {
      forgetUpload(shopId, uploadId);
      return answer.body!.data as ShopFile;
    }
    if (answer.status === 200) {
      offset = (answer.body!.data as UploadProgress).received;
      conflicts = 0;
    } else if (answer.status === 409 && answer.header('upload-offset') !== null && conflicts < 3) {
      offset = Number(answer.header('upload-offset'));
      conflicts += 1;
    } else {
      if (answer.status === 404) forgetUpload(shopId, uploadId);
      throw failure(answer);
    }
    handlers.onProgress(offset);
  }
}
