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

/** `1,000` */
const count = (n: number) => n.toLocaleString('en');

/** What a value of a string format is, in the owner's words. */
const FORMATS: Record<string, string> = {
  email: 'must be an e-mail address',
  uri: 'must be a full web address (https://…)',
  'date-time': 'must be a date and time (2026-01-31T12:00:00Z)',
  date: 'must be a date (2026-01-31)',
  uuid: 'must be an id of the form 123e4567-e89b-12d3-a456-426614174000',
  ipv4: 'must be an IPv4 address',
  ipv6: 'must be an IPv6 address',
};

/**
 * In plain words, as an owner reads them beside a field in the admin ("must not be empty", not a
 * validator's "must NOT have fewer than 1 characters"); types keep the schema's names (`must be
 * integer`), which are what a developer sending the wrong JSON type needs.
 */
function describe(error: ErrorObject): string {
  if (error.keyword === 'pattern' && error.params.pattern === NUL_FREE) {
    return error.propertyName === undefined
      ? 'must not contain NUL characters'
      : 'must not have NUL characters in its property names';
  }
  const limit = Number(error.params.limit);
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    case 'type':
      return `must be ${String(error.params.type).replace(',', ' or ')}`;
    case 'minLength':
      return limit <= 1 ? 'must not be empty' : `must be at least ${count(limit)} characters long`;
    case 'maxLength':
      return `must be at most ${count(limit)} characters long`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'multipleOf':
      return `must be a multiple of ${String(error.params.multipleOf)}`;
    case 'minItems':
      return limit <= 1 ? 'needs at least one entry' : `needs at least ${count(limit)} entries`;
    case 'maxItems':
      return `may have at most ${count(limit)} ${limit === 1 ? 'entry' : 'entries'}`;
    case 'uniqueItems':
      return 'must not list the same entry twice';
    case 'minProperties':
      return limit <= 1 ? 'must not be empty' : `needs at least ${count(limit)} entries`;
    case 'maxProperties':
      return `may have at most ${count(limit)} entries`;
    case 'format':
      return FORMATS[String(error.params.format)] ?? `must be a valid ${String(error.params.format)}`;
    case 'pattern':
      return 'is not in the accepted form';
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
