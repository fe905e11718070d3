import { type ReactNode, useEffect, useState } from 'react';
import { Link } from 'wouter';
import type { ListState } from '../api/queries/list';
import { strings } from '../strings';
import { count } from './format';

// The parts of a list screen: the search box, the pager, the table and its filters, bound to a
// list query (api/queries/list.ts `useList`).

/** A search box that asks the server once typing pauses. */
export function SearchBox(props: { value: string; onChange: (value: string) => void; label?: string }) {
  const [text, setText] = useState(props.value);
  const { value, onChange } = props;
  // The box follows the list (Back, a cleared filter) unless it already says the same; a space
  // being typed after a word is kept.
  useEffect(() => setText((typed) => (typed.trim() === value ? typed : value)), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onChange(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <input
      type="search"
      className="input search"
      placeholder={props.label ?? strings.common.search}
      aria-label={props.label ?? strings.common.search}
      value={text}
      onChange={(e) => setText(e.target.value)}
    />
  );
}

export function Pager<T>(props: { list: ListState<T> }) {
  const { list } = props;
  return (
    <nav className="pager" aria-label={strings.common.pages}>
      <span className="muted">{strings.common.inAll(count(list.totalCount), list.pageLabel)}</span>
      <button type="button" className="btn" onClick={list.prev} disabled={!list.hasPrev}>
        {strings.common.previous}
      </button>
      <button type="button" className="btn" onClick={list.next} disabled={!list.hasNext}>
        {strings.common.next}
      </button>
    </nav>
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** The API's `orderBy` value for this column (ascending; the descending one is `-` + it). */
  sort?: string;
  className?: string;
}

/**
 * A table of one page of rows. `href` makes each row a link (its first cell holds the link, so
 * the keyboard reaches it); `selection` adds checkboxes for bulk actions.
 */
export function DataTable<T>(props: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
  href?: (row: T) => string;
  list?: ListState<T>;
  empty?: ReactNode;
  loading?: boolean;
  selection?: { selected: ReadonlySet<string | number>; onChange: (next: Set<string | number>) => void };
  /** What a row is called, for its checkbox's name ("Select Game Key"). */
  rowLabel?: (row: T) => string;
  caption?: string;
}) {
  const { rows, columns, selection, list } = props;
  const allSelected = selection && rows.length > 0 && rows.every((r) => selection.selected.has(props.rowKey(r)));
  const toggle = (key: string | number) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    selection.onChange(next);
  };
  return (
    <div className="table-wrap">
      <table className="table" aria-busy={props.loading || list?.busy || undefined}>
        {props.caption ? <caption className="sr-only">{props.caption}</caption> : null}
        <thead>
          <tr>
            {selection ? (
              <th className="col-check">
                <input
                  type="checkbox"
                  aria-label={strings.common.selectAllOnThis}
                  checked={Boolean(allSelected)}
                  onChange={() =>
                    selection.onChange(allSelected ? new Set() : new Set(rows.map((r) => props.rowKey(r))))
                  }
                />
              </th>
            ) : null}
            {columns.map((column) => {
              const sorted =
                list && column.sort
                  ? list.orderBy === column.sort
                    ? 'ascending'
                    : list.orderBy === `-${column.sort}`
                      ? 'descending'
                      : undefined
                  : undefined;
              return (
                <th key={column.header} className={column.className} aria-sort={sorted ?? 'none'}>
                  {list && column.sort ? (
                    <button
                      type="button"
                      className="th-sort"
                      onClick={() => list.setOrderBy(sorted === 'ascending' ? `-${column.sort}` : column.sort)}
                    >
                      {column.header}
                      <span aria-hidden="true">
                        {sorted === 'ascending' ? ' ↑' : sorted === 'descending' ? ' ↓' : ''}
                      </span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length + (selection ? 1 : 0)} className="empty">
                {props.loading ? strings.common.loading : (props.empty ?? strings.common.nothingHereYet)}
              </td>
            </tr>
          ) : (
            rows.map((row) => {
              const key = props.rowKey(row);
              return (
                <tr key={key}>
                  {selection ? (
                    <td className="col-check">
                      <input
                        type="checkbox"
                        aria-label={
                          props.rowLabel ? strings.common.selectRow(props.rowLabel(row)) : strings.common.select
                        }
                        checked={selection.selected.has(key)}
                        onChange={() => toggle(key)}
                      />
                    </td>
                  ) : null}
                  {columns.map((column, i) => (
                    <td key={column.header} className={column.className} data-label={column.header}>
                      {i === 0 && props.href ? (
                        <Link href={props.href(row)} className="row-link">
                          {column.cell(row)}
                        </Link>
                      ) : (
                        column.cell(row)
                      )}
                    </td>
                  ))}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A `<select>` filter bound to a list's URL parameter; the empty choice removes the filter. */
export function FilterSelect<T>(props: {
  list: ListState<T>;
  name: string;
  label: string;
  options: readonly (readonly [value: string, label: string])[];
}) {
  return (
    <select
      className="input"
      aria-label={props.label}
      value={props.list.filters[props.name] ?? ''}
      onChange={(e) => props.list.setFilter(props.name, e.target.value || undefined)}
    >
      <option value="">{strings.common.all(props.label)}</option>
      {props.options.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </select>
  );
}
