import { type ReactNode, useId } from 'react';
import { ApiError } from '../api/client';

/**
 * A labelled form field with the API's error for it underneath. `children` is a function given
 * the input's id and described-by id, so the label and the error are tied to the input.
 */
export function Field(props: {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  children: (ids: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactNode;
  className?: string;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [props.error ? errorId : null, props.hint ? hintId : null].filter(Boolean).join(' ');
  return (
    <div className={`field ${props.error ? 'field-invalid' : ''} ${props.className ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(props.error ? { 'aria-invalid': true } : {}),
      })}
      {props.hint ? (
        <p className="field-hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p className="field-error" id={errorId}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** The API's problem with one field of a failed mutation (`fieldError(mutation.error, 'title')`). */
export function fieldError(error: unknown, name: string): string | undefined {
  return error instanceof ApiError ? error.fields[name] : undefined;
}

/**
 * A failed mutation's message above the form, with the problems no field shows (pass the names
 * of the fields the form has).
 */
export function FormError(props: { error: unknown; fields?: readonly string[] }) {
  if (!props.error) return null;
  if (!(props.error instanceof ApiError))
    return (
      <div className="alert alert-error" role="alert">
        {props.error instanceof Error ? props.error.message : 'Something went wrong.'}
      </div>
    );
  const rest = props.error.unshown(props.fields ?? []);
  return (
    <div className="alert alert-error" role="alert">
      <p>{props.error.message}</p>
      {rest.length > 0 ? (
        <ul>
          {rest.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
