import { useEffect, useState } from 'react';
import { Field } from '../../ui/Field';
import { type DashboardRange, type Preset, presets, rangeProblem } from './range';

/**
 * Preset buttons (pressed = current) and, for a custom range, two date inputs. A custom range
 * reaches the URL (and the API) only once both dates make a range the API takes.
 */
export function RangePicker(props: {
  range: DashboardRange;
  today: string;
  onPreset: (preset: Preset) => void;
  onCustom: (fromDate: string, toDate: string) => void;
}) {
  const { range } = props;
  const custom = range.preset === null;
  const [from, setFrom] = useState(range.fromDate);
  const [to, setTo] = useState(range.toDate);
  // Back/forward or a preset changes the range from outside: the inputs follow it.
  useEffect(() => {
    setFrom(range.fromDate);
    setTo(range.toDate);
  }, [range.fromDate, range.toDate]);

  const problem = rangeProblem(from, to);
  const change = (nextFrom: string, nextTo: string) => {
    setFrom(nextFrom);
    setTo(nextTo);
    if (!rangeProblem(nextFrom, nextTo)) props.onCustom(nextFrom, nextTo);
  };

  return (
    <div className="dash-range">
      <fieldset className="dash-range-presets">
        <legend className="sr-only">Date range</legend>
        {presets.map((p) => (
          <button
            key={p.id}
            type="button"
            className="btn"
            aria-pressed={!custom && range.preset === p.id}
            onClick={() => {
              props.onPreset(p.id);
            }}
          >
            {p.label}
          </button>
        ))}
        <button
          type="button"
          className="btn"
          aria-pressed={custom}
          onClick={() => {
            props.onCustom(range.fromDate, range.toDate);
          }}
        >
          Custom
        </button>
      </fieldset>
      {custom ? (
        <div className="dash-range-custom">
          <Field label="From" error={problem?.field === 'from' ? problem.message : undefined}>
            {(ids) => (
              <input
                {...ids}
                className="input"
                type="date"
                max={props.today}
                value={from}
                onChange={(e) => change(e.target.value, to)}
              />
            )}
          </Field>
          <Field label="To" error={problem?.field === 'to' ? problem.message : undefined}>
            {(ids) => (
              <input
                {...ids}
                className="input"
                type="date"
                max={props.today}
                value={to}
                onChange={(e) => change(from, e.target.value)}
              />
            )}
          </Field>
        </div>
      ) : null}
    </div>
  );
}
