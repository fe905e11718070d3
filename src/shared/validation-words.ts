import type { ErrorObject } from 'ajv';

/**
 * How a schema problem is worded, the contract's `"<field path>: <what is wrong>"`: shared by the
 * server's validators (src/http/validation.ts) and the admin's forms (web/admin/src/api/bodies.ts), which
 * check a body against the same schemas before sending it, so a problem reads the same found by
 * either. Nothing here may need Node: the admin's bundle imports it.
 */

/** The pattern every request string gets (validation.ts): no NUL characters. */
export const NUL_FREE = '^[^\\x00]*$';

/** Summaries of the errors beside them: which branch or which property name failed is said there. */
const SUMMARIES = new Set(['anyOf', 'oneOf', 'if', 'propertyNames']);

/** Where the problem is (`variants[0].title`), or '' for the value itself. */
function fieldPath(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'pattern' && error.params.pattern === NUL_FREE) {
    return error.propertyName === undefined
      ? 'must not contain NUL characters'
      : 'must not have NUL characters in its property names';
  }
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

/** One problem: `path` '' when it is the whole value's. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/** The problems of a validation, in order, each once, the branch summaries left out. */
export function validationProblems(errors: readonly ErrorObject[] | null | undefined): ValidationProblem[] {
  const seen = new Set<string>();
  const problems: ValidationProblem[] = [];
  for (const error of errors ?? []) {
    if (SUMMARIES.has(error.keyword)) continue;
    const problem = { path: fieldPath(error), message: describe(error) };
    const key = `${problem.path}: ${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}
