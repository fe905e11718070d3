import { type ComponentProps, type ReactNode, useId } from 'react';
import type { FieldError, FieldValues } from 'react-hook-form';
import { ApiError } from '../api/client';
import type { BodyForm } from '../forms/body-form';
import { strings } from '../strings';

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

/**
 * A checkbox with its label, its hint and its problem under it (tied to it like a Field's). The
 * input's props pass through, a form's `register(name)` included (React 19 passes `ref` as a prop).
 */
export function CheckField(
  props: Omit<ComponentProps<'input'>, 'type'> & { error?: string | undefined; hint?: ReactNode },
) {
  const { children, error, hint, ...input } = props;
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ');
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          {...input}
          {...(describedBy ? { 'aria-describedby': describedBy } : {})}
          {...(error ? { 'aria-invalid': true } : {})}
        />
        {children}
      </label>
      {hint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
    </>
  );
}

/**
 * A failed mutation's message above the form, with the problems no field shows (pass the names
 * of the fields the form has, or a test of the paths it shows).
 */
export function FormError(props: { error: unknown; fields?: readonly string[] | ((path: string) => boolean) }) {
  if (!props.error) return null;
  if (!(props.error instanceof ApiError))
    return (
      <div className="alert alert-error" role="alert">
        {props.error instanceof Error ? props.error.message : strings.common.somethingWentWrong}
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

/**
 * What stops a form, above it: the server's refusal with the problems no field shows, and the
 * problems the schema found where the form has no field (a field beside each shows the rest).
 */
export function FormProblems<Values extends FieldValues, Body>(props: {
  form: BodyForm<Values, Body>;
  error: unknown;
}) {
  // The resolver keeps every such problem in `types`.
  const root = props.form.formState.errors.root as FieldError | undefined;
  const problems = root ? Object.values(root.types ?? { 0: root.message }).map(String) : [];
  return (
    <>
      <FormError error={props.error} fields={props.form.shows} />
      {problems.length > 0 ? (
        <div className="alert alert-error" role="alert">
          <p>{strings.common.theFormCannotBe}</p>
          <ul>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
