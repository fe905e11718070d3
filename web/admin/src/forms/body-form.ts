import { toNestErrors } from '@hookform/resolvers';
import { type BaseSyntheticEvent, useEffect } from 'react';
import {
  type DefaultValues,
  type FieldError,
  type FieldValues,
  get,
  type Resolver,
  type UseFormReturn,
  useForm,
} from 'react-hook-form';
import { type BodyOf, type BodyOperation, bodyProblems, loadBodyValidator } from '../api/bodies';
import { ApiError } from '../api/client';

/**
 * The admin's forms: react-hook-form holds what the owner types, and a submit is checked
 * against the API's own schema of the operation's body before it is sent (the validators are
 * generated from /openapi.json at build time, see web/admin/scripts/body-validators.ts). A
 * problem shows beside the field it belongs to, found here or answered by the server alike; the
 * rest goes above the form (FormProblems).
 *
 * Why not @hookform/resolvers' ajv resolver: it compiles the schema in the browser with
 * `new Function`, which the admin's Content-Security-Policy forbids. The resolver below runs the
 * precompiled validator instead and shapes its problems with the package's `toNestErrors`.
 */
export interface BodyFormOptions<Values extends FieldValues, Op extends BodyOperation> {
  /** The operation the form sends, `"<METHOD> <path>"`: its body schema checks the form. */
  operation: Op;
  defaultValues: DefaultValues<Values>;
  /** The body sent for these values (text turned into numbers, empty texts into null …). */
  toBody: (values: Values) => BodyOf<Op>;
  /**
   * The form field a body path (`variants[0].priceDetails.amount`) is shown beside, when the
   * form's values are not shaped like the body. By default, the value at the same path, or the
   * nearest one above it (`restrictToProducts` for `restrictToProducts[2]`).
   */
  fieldOf?: (path: string) => string | undefined;
  /** Rules of the form itself, not of the API (the password typed twice): a message by field. */
  check?: (values: Values) => Partial<Record<string, string | undefined>>;
}

export interface BodyForm<Values extends FieldValues, Body> extends UseFormReturn<Values, unknown, Body> {
  /** The problem to show beside a field: the schema's, a rule's or the server's. */
  problem: (name: string) => string | undefined;
  /** Whether a body path is shown beside a field of this form (FormProblems lists the others). */
  shows: (path: string) => boolean;
  /** The submit handler: checks the form, then `send`s the body; the server's field problems land beside the fields. */
  submit: (send: (body: Body) => Promise<unknown>) => (event?: BaseSyntheticEvent) => Promise<void>;
}

/** `variants[0].title` → `variants.0.title`. */
const dotted = (path: string) => path.replace(/\[(\d+)\]/g, '.$1');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The field a body path belongs to, and whether it is that very field or one above it. By
 * default the form's values are shaped like the body: the path is followed into the values as
 * long as they are objects (an array's item only when it is one), so `socialLinks[0].link` is a
 * field of its own and `restrictToProducts[2]` is a problem of the `restrictToProducts` field.
 */
function placeOf(
  path: string,
  values: FieldValues,
  fieldOf: ((path: string) => string | undefined) | undefined,
): { field: string; exact: boolean } | undefined {
  if (fieldOf) {
    const field = fieldOf(path);
    return field === undefined ? undefined : { field, exact: true };
  }
  const segments = dotted(path).split('.');
  const taken: string[] = [];
  let current: unknown = values;
  for (const segment of segments) {
    if (!isRecord(current)) break;
    if (Array.isArray(current) && !isRecord(current[Number(segment)])) break;
    const next = current[segment];
    if (next === undefined) break;
    taken.push(segment);
    current = next;
  }
  if (taken.length === 0) return undefined;
  return { field: taken.join('.'), exact: taken.length === segments.length };
}

/** Problems by the field they are shown beside (the first of each), the others under `root`. */
function placeProblems(
  problems: readonly { path: string; message: string }[],
  values: FieldValues,
  fieldOf: ((path: string) => string | undefined) | undefined,
): { fields: Record<string, string>; rest: string[] } {
  const fields: Record<string, string> = {};
  const rest: string[] = [];
  for (const { path, message } of problems) {
    const place = placeOf(path, values, fieldOf);
    if (!place) rest.push(path ? `${path}: ${message}` : message);
    else fields[place.field] ??= place.exact ? message : `${path}: ${message}`;
  }
  return { fields, rest };
}

function bodyResolver<Values extends FieldValues, Op extends BodyOperation>(
  options: BodyFormOptions<Values, Op>,
): Resolver<Values, unknown, BodyOf<Op>> {
  return async (values, _context, resolverOptions) => {
    const body = options.toBody(values);
    const problems: Record<string, FieldError> = {};
    for (const [field, message] of Object.entries(options.check?.(values) ?? {}))
      if (message) problems[field] = { type: 'rule', message };
    let validate: Awaited<ReturnType<typeof loadBodyValidator>> | undefined;
    try {
      validate = await loadBodyValidator(options.operation);
    } catch {
      // The validator could not be fetched (a dropped connection): the server checks the same schema.
    }
    if (validate && !validate(body)) {
      const placed = placeProblems(bodyProblems(validate.errors), values, options.fieldOf);
      for (const [field, message] of Object.entries(placed.fields)) problems[field] ??= { type: 'schema', message };
      if (placed.rest.length > 0)
        problems.root = {
          type: 'schema',
          message: placed.rest[0],
          types: Object.fromEntries(placed.rest.map((text, i) => [String(i), text])),
        };
    }
    if (Object.keys(problems).length === 0) return { values: body, errors: {} };
    return { values: {}, errors: toNestErrors(problems, resolverOptions) };
  };
}

/** A react-hook-form form whose submit is checked against the API's schema of its body (see above). */
export function useBodyForm<Values extends FieldValues, Op extends BodyOperation>(
  options: BodyFormOptions<Values, Op>,
): BodyForm<Values, BodyOf<Op>> {
  const form = useForm<Values, unknown, BodyOf<Op>>({
    defaultValues: options.defaultValues,
    resolver: bodyResolver(options),
  });
  // Fetched while the owner types, so the check at submit does not wait for it.
  useEffect(() => {
    loadBodyValidator(options.operation).catch(() => undefined);
  }, [options.operation]);

  const { errors } = form.formState;
  const shows = (path: string) => placeOf(path, form.getValues(), options.fieldOf) !== undefined;
  /** The server's problems with fields: beside them, as the schema's are. */
  const showApiError = (error: unknown) => {
    if (!(error instanceof ApiError)) return;
    const problems = error.errors.flatMap((problem) => {
      const at = problem.indexOf(': ');
      return at > 0 ? [{ path: problem.slice(0, at), message: problem.slice(at + 2) }] : [];
    });
    const placed = placeProblems(problems, form.getValues(), options.fieldOf);
    for (const [field, message] of Object.entries(placed.fields))
      form.setError(field as never, { type: 'server', message }, { shouldFocus: false });
  };
  return {
    ...form,
    // An array's own problem sits under `root` when the form has fields inside it.
    problem: (name) =>
      ((get(errors, name) as FieldError | undefined)?.message ??
        (get(errors, `${name}.root`) as FieldError | undefined)?.message) ||
      undefined,
    shows,
    submit: (send) =>
      form.handleSubmit(async (body) => {
        try {
          await send(body);
        } catch (error) {
          showApiError(error);
        }
      }),
  };
}
