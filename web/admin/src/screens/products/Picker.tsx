import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { strings } from '../../strings';
import { count } from '../../ui/format';
import { moved } from './catalog';

export interface PickerItem {
  id: number;
  title: string;
  detail?: string;
}

/**
 * An ordered choice of ids (a group's products, a category's listings): the chosen ones in
 * order with Up / Down / Remove, and a server-side search to add more.
 */
export function Picker(props: {
  /** "product" or "listing": names the buttons ("Add product …"). */
  noun: string;
  legend: string;
  chosen: number[];
  onChange: (ids: number[]) => void;
  names: ReadonlyMap<number, string> | undefined;
  searchKey: readonly unknown[];
  search: (text: string) => Promise<{ items: PickerItem[]; totalCount: number }>;
  error?: string | undefined;
}) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const focusAfterMove = useRef<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text]);
  const results = useQuery({
    queryKey: [...props.searchKey, query],
    queryFn: () => props.search(query),
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    if (!focusAfterMove.current) return;
    document.getElementById(focusAfterMove.current)?.focus();
    focusAfterMove.current = null;
  });
  const chosen = new Set(props.chosen);
  const name = (id: number) => props.names?.get(id) ?? `#${id}`;
  const move = (index: number, by: -1 | 1, id: number) => {
    const next = moved(props.chosen, index, by);
    const newIndex = index + by;
    // Keep the keyboard on the moved row; at an end, on the button that still works.
    const direction = newIndex === 0 ? 'down' : newIndex === next.length - 1 ? 'up' : by === -1 ? 'up' : 'down';
    focusAfterMove.current = `pick-${id}-${direction}`;
    props.onChange(next);
  };

  return (
    <fieldset className="catalog-subgroup">
      <legend>{props.legend}</legend>
      {props.chosen.length === 0 ? <p className="muted small">{strings.picker.noneYet}</p> : null}
      <ol className="catalog-order">
        {props.chosen.map((id, index) => (
          <li key={id}>
            <span className="catalog-order-pos">{index + 1}.</span>
            <span className="catalog-order-title">{name(id)}</span>
            <button
              type="button"
              id={`pick-${id}-up`}
              className="btn btn-ghost"
              aria-label={strings.picker.moveUp(name(id))}
              disabled={index === 0}
              onClick={() => move(index, -1, id)}
            >
              ↑
            </button>
            <button
              type="button"
              id={`pick-${id}-down`}
              className="btn btn-ghost"
              aria-label={strings.picker.moveDown(name(id))}
              disabled={index === props.chosen.length - 1}
              onClick={() => move(index, 1, id)}
            >
              ↓
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={strings.picker.remove(name(id))}
              onClick={() => props.onChange(props.chosen.filter((x) => x !== id))}
            >
              {strings.common.remove}
            </button>
          </li>
        ))}
      </ol>
      {props.error ? <p className="field-error">{props.error}</p> : null}
      <label className="stack">
        <span>{strings.picker.findAToAdd(props.noun)}</span>
        <input type="search" className="input" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      {results.error ? <p className="field-error">{results.error.message}</p> : null}
      <ul
        className="catalog-picker"
        aria-label={strings.picker.searchResultsS(props.noun)}
        aria-busy={results.isFetching}
      >
        {(results.data?.items ?? []).map((item) => (
          <li key={item.id} className="row">
            <span className="grow">
              {item.title} {item.detail ? <span className="muted small">{item.detail}</span> : null}
            </span>
            <button
              type="button"
              className="btn"
              disabled={chosen.has(item.id)}
              aria-label={
                chosen.has(item.id) ? strings.picker.added(item.title) : strings.picker.add(props.noun, item.title)
              }
              onClick={() => props.onChange([...props.chosen, item.id])}
            >
              {chosen.has(item.id) ? strings.common.added : strings.common.add}
            </button>
          </li>
        ))}
        {results.data && results.data.items.length === 0 ? <li className="muted">{strings.picker.noMatch}</li> : null}
        {results.data && results.data.totalCount > results.data.items.length ? (
          <li className="muted small">
            {strings.picker.ofShownTypeTo(count(results.data.items.length), count(results.data.totalCount))}
          </li>
        ) : null}
      </ul>
    </fieldset>
  );
}
