import type { Generated, Selectable } from 'kysely';

/** Where a file's bytes are: `disk` under DATA_DIR/files, or `s3` in the configured bucket. */
export type StorageKind = 'disk' | 's3';

/** An uploaded file (migration 0026). `size` in bytes; `storage_key` is the key in `storage`. */
export interface FilesTable {
  id: string;
  shop_id: number;
  name: string;
  size: number;
  sha256: string;
  content_type: string;
  storage: StorageKind;
  storage_key: string;
  created_at: number;
}

/** A resumable upload in progress. `parts`: JSON `[{ partNumber, etag, size }]` of an S3 multipart upload. */
export interface FileUploadsTable {
  id: string;
  shop_id: number;
  name: string;
  size: number;
  content_type: string;
  received: Generated<number>;
  storage: StorageKind;
  storage_key: string;
  multipart_id: string | null;
  parts: Generated<string>;
  created_at: number;
  updated_at: number;
}

/** The files a `file` variant delivers, in `position` order. */
export interface FileAttachmentsTable {
  shop_id: number;
  variant_id: number;
  file_id: string;
  position: number;
}

/** A completed order's right to download a file: limit (0 = unlimited) and link hours fixed at delivery. */
export interface DownloadGrantsTable {
  id: Generated<number>;
  shop_id: number;
  invoice_id: string;
  file_id: string;
  download_limit: number;
  downloads: Generated<number>;
  link_hours: number;
  revoked_at: number | null;
  created_at: number;
}

/** One download served: `counted` 0 for a resumed range that did not count again. */
export interface DownloadLogTable {
  id: Generated<number>;
  shop_id: number;
  grant_id: number;
  invoice_id: string;
  file_id: string;
  at: number;
  ip: string | null;
  user_agent: string | null;
  range: string | null;
  counted: number;
  bytes: Generated<number>;
}

export type FileRow = Selectable<FilesTable>;
export type FileUploadRow = Selectable<FileUploadsTable>;
export type DownloadGrantRow = Selectable<DownloadGrantsTable>;
export type DownloadLogRow = Selectable<DownloadLogTable>;
