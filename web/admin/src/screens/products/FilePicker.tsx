import { useEffect, useRef, useState } from 'react';
import { useEveryFile } from '../../api/queries/files';
import { useShopPath } from '../../app/shop';
import { strings } from '../../strings';
import { bytes, count } from '../../ui/format';
import { moved, type VariantFile } from './catalog';

/**
 * The files a file variant delivers, in order: the chosen ones with Up / Down / Remove, and the
 * shop's files to tick (uploading is on the Files screen, opened in another tab so the product
 * form keeps its edits; the list is read again when the owner comes back to this tab).
 */
export function FilePicker(props: {
  shopId: number;
  variantName: string;
  chosen: VariantFile[];
  onChange: (files: VariantFile[]) => void;
  error?: string | undefined;
}) {
  const shopPath = useShopPath();
  const files = useEveryFile(props.shopId);
  const [filter, setFilter] = useState('');
  const focusAfterMove = useRef<string | null>(null);
  useEffect(() => {
    if (!focusAfterMove.current) return;
    document.getElementById(focusAfterMove.current)?.focus();
    focusAfterMove.current = null;
  });
  const chosenIds = new Set(props.chosen.map((f) => f.id));
  const move = (index: number, by: -1 | 1, id: string) => {
    const next = moved(props.chosen, index, by);
    const newIndex = index + by;
    const direction = newIndex === 0 ? 'down' : newIndex === next.length - 1 ? 'up' : by === -1 ? 'up' : 'down';
    focusAfterMove.current = `file-${id}-${direction}`;
    props.onChange(next);
  };
  const toggle = (file: VariantFile, on: boolean) =>
    props.onChange(on ? [...props.chosen, file] : props.chosen.filter((f) => f.id !== file.id));
  const all = files.data ?? [];
  const needle = filter.trim().toLowerCase();
  const shown = needle ? all.filter((f) => f.name.toLowerCase().includes(needle)) : all;

  return (
    <fieldset className="catalog-subgroup" aria-label={strings.filePicker.filesOf(props.variantName)}>
      <legend>{strings.filePicker.filesDelivered}</legend>
      {props.chosen.length === 0 ? (
        <p className="muted small">{strings.filePicker.noneChosenYetTick}</p>
      ) : (
        <ol className="catalog-order" aria-label={strings.filePicker.chosenFilesInOrder}>
          {props.chosen.map((file, index) => (
            <li key={file.id}>
              <span className="catalog-order-pos">{index + 1}.</span>
              <span className="catalog-order-title">
                {file.name} <span className="muted small">{bytes(file.size)}</span>
              </span>
              <button
                type="button"
                id={`file-${file.id}-up`}
                className="btn btn-ghost"
                aria-label={strings.filePicker.moveUp(file.name)}
                disabled={index === 0}
                onClick={() => move(index, -1, file.id)}
              >
                ↑
              </button>
              <button
                type="button"
                id={`file-${file.id}-down`}
                className="btn btn-ghost"
                aria-label={strings.filePicker.moveDown(file.name)}
                disabled={index === props.chosen.length - 1}
                onClick={() => move(index, 1, file.id)}
              >
                ↓
              </button>
              <button
                type="button"
                className="btn btn-ghost"
                aria-label={strings.filePicker.remove(file.name)}
                onClick={() => toggle(file, false)}
              >
                {strings.common.remove}
              </button>
            </li>
          ))}
        </ol>
      )}
      {props.error ? <p className="field-error">{props.error}</p> : null}
      <div className="row">
        {all.length > 8 ? (
          <input
            type="search"
            className="input grow"
            aria-label={strings.filePicker.filterTheShopsFiles}
            placeholder={strings.filePicker.filterTheShopsFiles}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        ) : null}
        {/* A plain link: wouter's Link would open the screen in this tab, over the unsaved form. */}
        <a href={`/admin${shopPath('/files')}`} target="_blank" rel="noreferrer" className="small">
          {strings.filePicker.uploadFilesOnThe}
        </a>
        <button type="button" className="btn btn-ghost" onClick={() => files.refetch()} disabled={files.isFetching}>
          {files.isFetching ? strings.filePicker.reading : strings.filePicker.refreshTheList}
        </button>
      </div>
      {files.error ? <p className="field-error">{files.error.message}</p> : null}
      <ul className="catalog-picker" aria-label={strings.filePicker.theShopsFiles} aria-busy={files.isFetching}>
        {files.isPending ? <li className="muted">{strings.filePicker.loadingTheFiles}</li> : null}
        {files.data && all.length === 0 ? <li className="muted">{strings.filePicker.theShopHasNo}</li> : null}
        {shown.map((file) => (
          <li key={file.id}>
            <label className="check">
              <input
                type="checkbox"
                checked={chosenIds.has(file.id)}
                onChange={(e) =>
                  toggle(
                    { id: file.id, name: file.name, size: file.size, contentType: file.contentType },
                    e.target.checked,
                  )
                }
              />
              <span>
                {file.name}{' '}
                <span className="muted small">
                  {bytes(file.size)} · {file.contentType}
                </span>
              </span>
            </label>
          </li>
        ))}
        {needle && shown.length === 0 && all.length > 0 ? (
          <li className="muted">{strings.filePicker.noFileMatches}</li>
        ) : null}
        {needle && shown.length > 0 ? (
          <li className="muted small">{strings.filePicker.ofShown(count(shown.length), count(all.length))}</li>
        ) : null}
      </ul>
    </fieldset>
  );
}
