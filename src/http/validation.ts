import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import ajvErrors from 'ajv-errors';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Two validators: bodies are checked strictly (a string where a number belongs is a 400,
 * never silently coerced), while path and query parameters, which arrive as text, are coerced
 * to their declared types. Unknown body fields are ignored; defaults are applied.
 */
function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    strict: false,
    // 0.29 is a multiple of 0.01 although 0.29 / 0.01 is 28.999999999999996 in binary floating point.
    multipleOfPrecision: 9,
  });
  // ajv-formats and ajv-errors are CommonJS with a default export; under NodeNext the function sits on .default.
  (formats as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  // `errorMessage` in a schema (ajv-errors) gives a pattern a sentence instead of the pattern itself.
  (ajvErrors as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const paramAjv = makeAjv('array');

/**
 * Path and query integers must be written as plain decimal digits: ajv's coercion would also
 * take `0x1`, `1e0`, `1.0` or ` 1` as 1, and a contract id is a positive integer, nothing else.
 */
const PLAIN_INTEGER = /^-?\d+$/;

function strictIntegers(schema: { properties?: Record<string, { type?: unknown }> }, validate: ValidateFunction): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, s]) => s.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const strict = ((data: Record<string, unknown> | undefined) => {
    const bad = integers.filter((name) => typeof data?.[name] === 'string' && !PLAIN_INTEGER.test(data[name] as string));
    if (bad.length > 0) {
      strict.errors = bad.map((name) => ({ instancePath: `/${name}`, schemaPath: '', keyword: 'type', params: { type: 'integer' }, message: 'must be integer' }));
      return false;
    }
    const valid = validate(data);
    strict.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return strict;
}

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  httpPart === 'body' ? bodyAjv.compile(schema as object) : strictIntegers(schema as object, paramAjv.compile(schema as object));

/** Shared-schema registration for both validators (`Type.Ref` targets). */
export function addSharedSchema(schema: { $id?: string }): void {
  if (!schema.$id) throw new Error('a shared schema needs an $id');
  for (const ajv of [bodyAjv, paramAjv]) if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
}

function fieldPath(error: ErrorObject, part: string | undefined): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  const path = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return path || part || 'body';
}

function describe(error: ErrorObject): string {
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

/** Turns ajv errors into the contract's `"<field path>: <what is wrong>"` strings. */
export function formatValidationErrors(errors: ErrorObject[], part: string | undefined): string[] {
  const messages = errors
    .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if')
    .map((e) => `${fieldPath(e, part)}: ${describe(e)}`);
  return [...new Set(messages)];
}
