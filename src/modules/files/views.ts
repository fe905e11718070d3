import { toIso } from '../../schemas/common.js';
import type { FileRow, FileUploadRow } from './files.table.js';
import type { FileView, UploadProgress } from './schema.js';

/** What another module sees of a file (products' `asFile.files`, the mail's list). */
export interface FileSummary {
  id: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string;
}

export function toFileSummary(row: FileRow): FileSummary {
  return { id: row.id, name: row.name, size: row.size, sha256: row.sha256, contentType: row.content_type };
}

export function toFileView(row: FileRow): FileView {
  return { ...toFileSummary(row), createdAt: toIso(row.created_at) };
}

export function toUploadProgress(row: FileUploadRow, chunkBytes: number): UploadProgress {
  return {
    id: row.id,
    name: row.name,
    size: row.size,
    received: row.received,
    chunkBytes,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
