import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { strings } from '../../strings';
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
  // A filter, not a body: no schema, and each change applies at once when the range is whole.
  const form = useForm({ defaultValues: { from: range.fromDate, to: range.toDate } });
  const { reset } = form;
  // Back/forward or a preset changes the range from outside: the inputs follow it.
  useEffect(() => reset({ from: range.fromDate, to: range.toDate }), [reset, range.fromDate, range.toDate]);

  const [from, to] = form.watch(['from', 'to']);
  const problem = rangeProblem(from, to);
  const apply = () => {
    const next = form.getValues();
    if (!rangeProblem(next.from, next.to)) props.onCustom(next.from, next.to);
  };

  return (
    <div className="dash-range">
      <fieldset className="dash-range-presets">
        <legend className="sr-only">{strings.dashboard.dateRange}</legend>
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
          {strings.dashboard.custom}
        </button>
      </fieldset>
      {custom ? (
        <div className="dash-range-custom">
          <Field label={strings.common.from} error={problem?.field === 'from' ? problem.message : undefined}>
            {(ids) => (
              <input
                {...ids}
                {...form.register('from', { onChange: apply })}
                className="input"
                type="date"
                max={props.today}
              />
            )}
          </Field>
          <Field label={strings.common.to} error={problem?.field === 'to' ? problem.message : undefined}>
            {(ids) => (
              <input
                {...ids}
                {...form.register('to', { onChange: apply })}
                className="input"
                type="date"
                max={props.today}
              />
            )}
          </Field>
        </div>
      ) : null}
    </div>
  );
}
