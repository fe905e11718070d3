import { useId } from 'react';

/**
 * One figure: a <figure> named by its label and described by its value, so a test (or a screen
 * reader) finds it by role and name: `getByRole('figure', { name: 'Orders', exact: true })` has
 * the accessible description "1,234"; `data-value` holds the unformatted number.
 */
export function Stat(props: { label: string; value: string; raw?: number | null; note?: string; busy?: boolean }) {
  const id = useId();
  return (
    <figure
      className="dash-stat"
      aria-labelledby={`${id}-label`}
      aria-describedby={`${id}-value`}
      aria-busy={props.busy || undefined}
      data-value={props.raw ?? undefined}
    >
      <figcaption className="stat-label" id={`${id}-label`}>
        {props.label}
      </figcaption>
      <span className="stat-value" id={`${id}-value`}>
        {props.value}
      </span>
      {props.note ? <span className="muted small">{props.note}</span> : null}
    </figure>
  );
}
