import type { ErrorObject } from 'ajv';
import { type BodyOperation, type BodyValidator, bodyValidators } from './generated/body-validators';
import type { paths } from './schema';

export type { BodyOperation, BodyValidator };

/** The JSON body of an operation named `"<METHOD> <path>"`, as the generated types have it. */
export type BodyOf<Op extends BodyOperation> = Op extends `${infer M} ${infer P}`
  ? P extends keyof paths
    ? Lowercase<M> extends keyof paths[P]
      ? paths[P][Lowercase<M>] extends { requestBody?: { content: { 'application/json': infer B } } }
        ? B
        : never
      : never
    : never
  : never;

/** The validator of an operation's body (its module is fetched on the first call, then kept). */
export function loadBodyValidator(operation: BodyOperation): Promise<BodyValidator> {
  return bodyValidators[operation]().then((module) => module.validate);
}

/** One problem of a body, as the API words it: `path` is the contract's (`variants[0].title`). */
export interface BodyProblem {
  path: string;
  message: string;
}

/** Where a problem is, in the API's `"<field path>: …"` form (as src/http/validation.ts writes it). */
function pathOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

/** What is wrong, in the API's words, so a problem reads the same found here or by the server. */
function messageOf(error: ErrorObject): string {
  if (error.keyword === 'pattern' && error.params.pattern === '^[^\\x00]*$') return 'must not contain NUL characters';
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `must be ${String(error.params.type).replace(',', ' or ')}`;
    default:
      return error.message ?? 'is not valid';
  }
}

/** The problems of a validation, first one first, each once; branch summaries left out as the API does. */
export function bodyProblems(errors: readonly ErrorObject[] | null | undefined): BodyProblem[] {
  const seen = new Set<string>();
  const problems: BodyProblem[] = [];
  for (const error of errors ?? []) {
    if (['anyOf', 'oneOf', 'if', 'propertyNames'].includes(error.keyword)) continue;
    const problem = { path: pathOf(error), message: messageOf(error) };
    const key = `${problem.path}: ${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}
