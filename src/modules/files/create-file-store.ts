import { join } from 'node:path';
import type { Config } from '../../config.js';
import { createDiskFileStore } from './disk-store.js';
import type { FileStore } from './file-store.js';
import { createS3FileStore, type StoreWarning } from './s3-store.js';

/**
 * The store of owners' files, built once at start (`app.files`): the S3-compatible bucket when
 * FILES_S3_BUCKET is set (what several instances need), else `DATA_DIR/files`.
 */
export function createFileStore(config: Pick<Config, 'dataDir' | 'files'>, warn?: StoreWarning): FileStore {
  return config.files.s3
    ? createS3FileStore(config.files.s3, warn)
    : createDiskFileStore(join(config.dataDir, 'files'));
}
