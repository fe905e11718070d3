import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { ApiError, api, unwrap } from '../../api/client';
import { type ShopFile, useFileList } from '../../api/queries/files';
import { queryKeys } from '../../api/queries/keys';
import {
  abortUpload,
  CHUNKED_FROM,
  forgetUpload,
  isSameFile,
  type StoredUpload,
  serverProgress,
  storedUploads,
} from '../../api/uploads';
import { useShopId } from '../../app/shop';
import { ShopTime, useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { ConfirmButton } from '../../ui/Dialog';
import { bytes } from '../../ui/format';
import { DataTable, Pager, SearchBox } from '../../ui/list';
import { Card, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { type Upload, useUploads } from './use-uploads';
import './files.css';

/** The shop's files (what file products deliver): upload with progress, resume, list, delete. */
export default function FilesScreen() {
  const shopId = useShopId();
  const list = useFileList(shopId);
  const queue = useUploads(shopId);
  const queryClient = useQueryClient();
  const notify = useToast();
  const [deleteError, setDeleteError] = useState<{ name: string; error: unknown } | null>(null);

  const remove = useMutation({
    mutationFn: (file: ShopFile) =>
      unwrap(api.DELETE('/self/{shopId}/files/{fileId}', { params: { path: { shopId, fileId: file.id } } })),
    onMutate: () => setDeleteError(null),
    onSuccess: async (_answer, file) => {
      notify(strings.files.deleted(file.name));
      await queryClient.invalidateQueries({ queryKey: queryKeys.files.all(shopId) });
    },
    onError: (error, file) => setDeleteError({ name: file.name, error }),
  });

  return (
    <Page title={strings.common.files} actions={<UploadButton onFiles={queue.start} />}>
      <p className="muted">{strings.files.theFilesYourFile(bytes(CHUNKED_FROM))}</p>
      <UploadQueue queue={queue} />
      <UnfinishedUploads shopId={shopId} running={queue.uploads} onResume={queue.start} />

      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.files.searchFilesByName} />
      </div>
      {deleteError ? <DeleteError {...deleteError} /> : null}
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={strings.common.files}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(f) => f.id}
        empty={list.search ? strings.files.noFileMatchesThis : strings.files.noFilesYetUpload}
        columns={[
          { header: strings.common.name, cell: (f) => <span className="files-name">{f.name}</span> },
          { header: strings.files.size, className: 'num', cell: (f) => bytes(f.size) },
          { header: strings.common.type, cell: (f) => <span className="files-type">{f.contentType}</span> },
          {
            header: strings.files.sha256,
            cell: (f) => (
              <code className="files-hash" title={f.sha256}>
                {f.sha256.slice(0, 12)}…
              </code>
            ),
          },
          { header: strings.files.uploaded, cell: (f) => <ShopTime iso={f.createdAt} /> },
          {
            header: strings.common.actions,
            cell: (f) => (
              <ConfirmButton
                label={strings.common.delete}
                danger
                question={strings.files.deleteOrdersThatDelivered(f.name)}
                onConfirm={() => remove.mutate(f)}
                disabled={remove.isPending}
              />
            ),
          },
        ]}
      />
      <Pager list={list} />
    </Page>
  );
}

/** Why a delete was refused: a file a product delivers (409) is said plainly. */
function DeleteError(props: { name: string; error: unknown }) {
  const { error } = props;
  if (error instanceof ApiError && error.status === 409)
    return (
      <div className="alert alert-error" role="alert">
        <p>
          <strong>{strings.files.isUsedByA(props.name)}</strong>
          {strings.files.soItWasNot}
        </p>
        <p className="small">{error.message}</p>
      </div>
    );
  return (
    <div className="alert alert-error" role="alert">
      <p>
        {strings.files.wasNotDeleted(props.name)}{' '}
        {error instanceof Error ? error.message : strings.files.somethingWentWrong}
      </p>
    </div>
  );
}

/** The page's upload button: a file input styled as one, several files at once. */
function UploadButton(props: { onFiles: (files: File[]) => void }) {
  const id = useId();
  return (
    <label htmlFor={id} className="btn btn-primary files-upload">
      {strings.files.uploadFiles}
      <input
        id={id}
        type="file"
        multiple
        className="sr-only"
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = '';
          if (files.length > 0) props.onFiles(files);
        }}
      />
    </label>
  );
}

function percent(done: number, total: number): number {
  return total === 0 ? 100 : Math.floor((done / total) * 100);
}

/** The uploads on their way, each with its progress bar, Cancel, and Resume or Retry when it stopped. */
function UploadQueue(props: { queue: ReturnType<typeof useUploads> }) {
  const { uploads, resume, cancel, dismiss } = props.queue;
  if (uploads.length === 0) return null;
  return (
    <Card title={strings.files.uploads}>
      <ul className="files-queue">
        {uploads.map((u) => (
          <UploadRow
            key={u.key}
            upload={u}
            onResume={() => resume(u.key)}
            onCancel={() => void cancel(u.key)}
            onDismiss={() => dismiss(u.key)}
          />
        ))}
      </ul>
    </Card>
  );
}

function UploadRow(props: { upload: Upload; onResume: () => void; onCancel: () => void; onDismiss: () => void }) {
  const { upload: u } = props;
  const labelId = useId();
  const size = u.file.size;
  const pct = percent(u.sent, size);
  const stateText =
    u.state === 'done'
      ? strings.files.uploaded
      : u.state === 'interrupted'
        ? strings.files.stoppedAt(pct, u.error)
        : u.state === 'failed'
          ? strings.files.failed(u.error)
          : strings.files.progress(
              pct,
              bytes(u.sent),
              bytes(size),
              u.resumedFrom > 0 ? strings.files.resumedAt(bytes(u.resumedFrom)) : '',
            );
  return (
    <li className={`files-upload-row files-upload-${u.state}`}>
      <div className="files-upload-head">
        <strong id={labelId} className="files-name">
          {u.file.name}
        </strong>
        <span className="muted small">
          {bytes(size)}
          {u.chunked ? strings.files.resumable : ''}
        </span>
      </div>
      <progress
        value={u.sent}
        max={size || 1}
        aria-labelledby={labelId}
        aria-valuetext={stateText}
        className="files-progress"
      />
      <div className="row">
        <span className={`small grow ${u.state === 'failed' || u.state === 'interrupted' ? 'files-error' : 'muted'}`}>
          {stateText}
        </span>
        {u.state === 'interrupted' || (u.state === 'failed' && u.chunked) ? (
          <button type="button" className="btn" onClick={props.onResume}>
            {strings.files.resume}
          </button>
        ) : null}
        {u.state === 'failed' && !u.chunked ? (
          <button type="button" className="btn" onClick={props.onResume}>
            {strings.files.retry}
          </button>
        ) : null}
        {u.state === 'done' || (u.state === 'failed' && !u.chunked) ? (
          <button type="button" className="btn btn-ghost" onClick={props.onDismiss}>
            {strings.files.dismiss}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={props.onCancel}
            aria-label={strings.files.cancelTheUploadOf(u.file.name)}
          >
            {strings.common.cancel}
          </button>
        )}
      </div>
    </li>
  );
}

/**
 * Resumable uploads started here before (a reload, a closed tab) and not finished: how far the
 * server got, "Resume…" (choose the same file: it continues from there) and "Discard".
 */
function UnfinishedUploads(props: { shopId: number; running: Upload[]; onResume: (files: File[]) => void }) {
  const { dateTime } = useShopDates();
  const { shopId } = props;
  const notify = useToast();
  const inputs = useRef(new Map<string, HTMLInputElement>());
  const [wrongFile, setWrongFile] = useState<string | null>(null);
  const unfinished = useQuery({
    queryKey: [...queryKeys.files.all(shopId), 'unfinished'],
    queryFn: async () => {
      const stored = storedUploads(shopId);
      const found = await Promise.all(
        stored.map(async (s) => ({ stored: s, progress: await serverProgress(shopId, s.uploadId) })),
      );
      // Completed, expired or dropped on the server: nothing to resume.
      for (const f of found) if (!f.progress) forgetUpload(shopId, f.stored.uploadId);
      return found.flatMap((f) => (f.progress ? [{ stored: f.stored, received: f.progress.received }] : []));
    },
  });
  const discard = useMutation({
    mutationFn: (stored: StoredUpload) => abortUpload(shopId, stored.uploadId),
    onSuccess: (_x, stored) => {
      notify(strings.files.discardedTheUploadOf(stored.name));
      void unfinished.refetch();
    },
  });
  // What was cancelled, discarded or finished since the query ran is no longer stored.
  const kept = new Set(storedUploads(shopId).map((s) => s.uploadId));
  const runningIds = new Set(props.running.map((u) => u.uploadId));
  const runningFiles = props.running.map((u) => u.file);
  const rows = (unfinished.data ?? []).filter(
    (u) =>
      kept.has(u.stored.uploadId) &&
      !runningIds.has(u.stored.uploadId) &&
      !runningFiles.some((f) => isSameFile(u.stored, f)),
  );
  if (rows.length === 0) return null;
  return (
    <Card title={strings.files.unfinishedUploads}>
      <p className="muted small">{strings.files.theseUploadsStoppedBefore}</p>
      {wrongFile ? (
        <p className="alert alert-error" role="alert">
          {wrongFile}
        </p>
      ) : null}
      <ul className="files-queue">
        {rows.map(({ stored, received }) => {
          const labelId = `unfinished-${stored.uploadId}`;
          return (
            <li key={stored.uploadId} className="files-upload-row files-upload-interrupted">
              <div className="files-upload-head">
                <strong id={labelId} className="files-name">
                  {stored.name}
                </strong>
                <span className="muted small">
                  {strings.files.started(bytes(stored.size), dateTime(stored.startedAt))}
                </span>
              </div>
              <progress
                value={received}
                max={stored.size}
                aria-labelledby={labelId}
                aria-valuetext={strings.files.received(percent(received, stored.size))}
                className="files-progress"
              />
              <div className="row">
                <span className="small grow muted">
                  {strings.files.receivedOf(percent(received, stored.size), bytes(received), bytes(stored.size))}
                </span>
                <button
                  type="button"
                  className="btn"
                  onClick={() => inputs.current.get(stored.uploadId)?.click()}
                  aria-label={strings.files.resumeTheUploadOf(stored.name)}
                >
                  {strings.files.resumeChoose}
                </button>
                <input
                  ref={(el) => {
                    if (el) inputs.current.set(stored.uploadId, el);
                    else inputs.current.delete(stored.uploadId);
                  }}
                  type="file"
                  className="sr-only"
                  tabIndex={-1}
                  aria-label={strings.files.theFileToResume(stored.name)}
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    e.target.value = '';
                    if (!file) return;
                    if (!isSameFile(stored, file)) {
                      setWrongFile(strings.files.isNotTheFile(file.name, stored.name, bytes(stored.size)));
                      return;
                    }
                    setWrongFile(null);
                    props.onResume([file]);
                  }}
                />
                <ConfirmButton
                  label={strings.files.discard}
                  question={strings.files.discardTheUnfinishedUpload(stored.name)}
                  onConfirm={() => discard.mutate(stored)}
                  disabled={discard.isPending}
                  className="btn-ghost"
                />
              </div>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
