// The files module's door: what other modules and the composition root (src/app.ts) use of it.
export { createFileStore } from './create-file-store.js';
export { fileDownloadRoutes } from './download.routes.js';
export {
  type Download,
  type DownloadLogEntry,
  downloadLogOfInvoice,
  downloadsOfInvoice,
  grantDownloads,
} from './downloads.service.js';
export { subscribe as subscribeFiles } from './downloads.subscribers.js';
export {
  attachmentDisposition,
  type ByteRange,
  type FileStore,
  FileTooLargeError,
} from './file-store.js';
export { fileOwnerRoutes } from './owner.routes.js';
export { FileId } from './schema.js';
export { attachedFiles, attachFiles, detachFiles } from './service.js';
export { fileUploadSweepJob } from './upload.service.js';
export type { FileSummary } from './views.js';
