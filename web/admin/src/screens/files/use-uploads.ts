import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { queryKeys } from '../../api/queries/keys';
import { abortUpload, CHUNKED_FROM, NetworkError, UploadAborted, uploadInChunks, uploadWhole } from '../../api/uploads';
import { strings } from '../../strings';
import { useToast } from '../../ui/Toast';

/** A file on its way to the shop, as the Files screen shows it. */
export interface Upload {
  key: string;
  file: File;
  /** Through a resumable upload (a large file). */
  chunked: boolean;
  /** The resumable upload's id, once it is known. */
  uploadId: string | null;
  /** Bytes the server has, plus those of the request on its way. */
  sent: number;
  /** Where this run started (a resumed upload starts past 0). */
  resumedFrom: number;
  state: 'uploading' | 'interrupted' | 'failed' | 'done';
  error: string | null;
}

let nextKey = 0;

/**
 * The uploads of this screen: started, followed, cancelled (the resumable upload is dropped on
 * the server too) and resumed. A finished one leaves the queue after a moment; the file list is
 * read again.
 */
export function useUploads(shopId: number) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const controllers = useRef(new Map<string, AbortController>());
  const queryClient = useQueryClient();
  const notify = useToast();

  // Leaving the screen stops what is on its way (a resumable upload can be resumed later).
  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  // Closing or reloading the page while bytes are on their way asks first.
  const busy = uploads.some((u) => u.state === 'uploading');
  useEffect(() => {
    if (!busy) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [busy]);

  const update = useCallback(
    (key: string, change: Partial<Upload>) =>
      setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u))),
    [],
  );

  const run = useCallback(
    async (upload: Upload) => {
      const { key, file } = upload;
      const controller = new AbortController();
      controllers.current.set(key, controller);
      update(key, { state: 'uploading', error: null });
      try {
        if (upload.chunked)
          await uploadInChunks(
            shopId,
            file,
            {
              onStart: (uploadId, received) => update(key, { uploadId, resumedFrom: received }),
              onProgress: (sent) => update(key, { sent }),
            },
            controller.signal,
          );
        else await uploadWhole(shopId, file, (sent) => update(key, { sent }), controller.signal);
        update(key, { state: 'done', sent: file.size });
        notify(`Uploaded ${file.name}`);
        await queryClient.invalidateQueries({ queryKey: queryKeys.files.all(shopId) });
        setTimeout(() => setUploads((all) => all.filter((u) => u.key !== key)), 4000);
      } catch (error) {
        if (error instanceof UploadAborted) return;
        if (error instanceof NetworkError)
          update(key, { state: 'interrupted', error: strings.files.theConnectionWasLost });
        else
          update(key, {
            state: 'failed',
            error: error instanceof Error ? error.message : strings.files.theUploadFailed,
          });
      } finally {
        controllers.current.delete(key);
      }
    },
    [shopId, update, notify, queryClient],
  );

  const start = useCallback(
    (files: File[]) => {
      const added = files.map(
        (file): Upload => ({
          key: `upload-${++nextKey}`,
          file,
          chunked: file.size > CHUNKED_FROM,
          uploadId: null,
          sent: 0,
          resumedFrom: 0,
          state: 'uploading',
          error: null,
        }),
      );
      setUploads((all) => [...all, ...added]);
      for (const upload of added) void run(upload);
    },
    [run],
  );

  const resume = useCallback(
    (key: string) => {
      const upload = uploads.find((u) => u.key === key);
      if (upload) void run(upload);
    },
    [uploads, run],
  );

  const cancel = useCallback(
    async (key: string) => {
      const upload = uploads.find((u) => u.key === key);
      controllers.current.get(key)?.abort();
      setUploads((all) => all.filter((u) => u.key !== key));
      if (upload?.uploadId)
        await abortUpload(shopId, upload.uploadId).catch(() =>
          notify(
            `The upload of ${upload.file.name} could not be dropped on the server; it expires within a day`,
            'bad',
          ),
        );
    },
    [uploads, shopId, notify],
  );

  const dismiss = useCallback((key: string) => setUploads((all) => all.filter((u) => u.key !== key)), []);

  return { uploads, start, resume, cancel, dismiss };
}
