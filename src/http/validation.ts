import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvErrors from 'ajv-errors';
import formats from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler, RouteOptions } from 'fastify';
import { NUL_FREE, validationProblems } from '../shared/validation-words.js';

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

function strictIntegers(
  schema: { properties?: Record<string, { type?: unknown }> },
  validate: ValidateFunction,
): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, s]) => s.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const strict = ((data: Record<string, unknown> | undefined) => {
    const bad = integers.filter(
      (name) => typeof data?.[name] === 'string' && !PLAIN_INTEGER.test(data[name] as string),
    );
    if (bad.length > 0) {
      strict.errors = bad.map((name) => ({
        instancePath: `/${name}`,
        schemaPath: '',
        keyword: 'type',
        params: { type: 'integer' },
        message: 'must be integer',
      }));
      return false;
    }
    const valid = validate(data);
    strict.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return strict;
}

/**
 * Query parameters may have a second, deprecated name (`'x-alias-of': '<canonical>'` on the
 * alias property): the original service's clients send `PageNumber`/`PageSize`. Each name is
 * validated by its own schema (so an error names what the client sent), then the alias's value
 * moves to the canonical name. Both given with different values is a 400: neither may win
 * silently. Only the canonical name reaches the handler.
 */
function mergeAliases(
  schema: { properties?: Record<string, Record<string, unknown>> },
  validate: ValidateFunction,
): ValidateFunction {
  const aliases = Object.entries(schema.properties ?? {})
    .filter(([, s]) => typeof s['x-alias-of'] === 'string')
    .map(([alias, s]) => ({ alias, canonical: s['x-alias-of'] as string }));
  if (aliases.length === 0) return validate;
  const merged = ((data: Record<string, unknown> | undefined) => {
    // Defaults fill the canonical name during validation: whether the client gave it is known only before.
    const given = new Set(
      aliases.filter(({ canonical }) => data !== undefined && Object.hasOwn(data, canonical)).map((a) => a.canonical),
    );
    const valid = validate(data);
    merged.errors = validate.errors;
    if (!valid || data === undefined) return valid;
    const conflicts: ErrorObject[] = [];
    for (const { alias, canonical } of aliases) {
      if (!Object.hasOwn(data, alias)) continue;
      if (given.has(canonical) && data[canonical] !== data[alias]) {
        conflicts.push({
          instancePath: `/${alias}`,
          schemaPath: '',
          keyword: 'x-alias-of',
          params: { canonical },
          message: `must equal ${canonical} when both are given`,
        });
        continue;
      }
      data[canonical] = data[alias];
      delete data[alias];
    }
    if (conflicts.length === 0) return true;
    merged.errors = conflicts;
    return false;
  }) as ValidateFunction;
  return merged;
}

/**
 * Validators already compiled, by the schema they check (its JSON) and the part it is for, so
 * that every app built in one process compiles each schema once. Route schemas are new objects
 * in each app (`refuseNulInRequests` copies them, and many are built inside the route plugins),
 * so ajv's own cache, keyed by the object, never sees one twice. The server builds one app and
 * gains nothing; the tests build one per test, and compiling every route's validators again for
 * each was about 40 % of a test file's CPU time (test/modules/shops.test.ts: 12 of 29 s). A
 * validator depends on nothing but its schema (the shared schemas it refers to are added once,
 * below), so reusing one changes no answer.
 */
const compiledValidators = new Map<string, ValidateFunction>();

// biome-ignore lint/suspicious/noExplicitAny: Fastify's compiler type is generic over every schema type
export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const part = httpPart === 'body' ? 'body' : 'parameters';
  const key = `${part}\n${JSON.stringify(schema)}`;
  let validate = compiledValidators.get(key);
  if (!validate) {
    validate =
      part === 'body'
        ? bodyAjv.compile(schema as object)
        : mergeAliases(schema as object, strictIntegers(schema as object, paramAjv.compile(schema as object)));
    compiledValidators.set(key, validate);
  }
  return validate;
};

/**
 * No string a client sends may contain U+0000. PostgreSQL cannot store it in text (the query
 * fails: a 500) while SQLite stores it: refusing it up front gives one answer, a 400 naming the
 * field, on both engines, before anything is written. The rule is added to the route's own
 * schemas (by `refuseNulInRequests`, an onRoute hook), so validation and /openapi.json show the
 * same thing: every string without an enum carries the pattern below (inside an `allOf` where it
 * already has a pattern of its own), and open maps carry it as `propertyNames`.
 */

type JsonSchema = Record<string, unknown>;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** Where a schema holds the schemas of its parts; `not`, `if` and `contains` are left alone, as a rule added there would turn around. */
const schemaMaps = ['properties', 'patternProperties', 'dependentSchemas'];
const schemaLists = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const schemaSlots = ['additionalProperties', 'items', 'then', 'else', 'propertyNames'];

function addNulRule(schema: JsonSchema): void {
  const allOf = Array.isArray(schema.allOf) ? (schema.allOf as unknown[]) : [];
  if (schema.pattern === NUL_FREE || allOf.some((s) => isSchema(s) && s.pattern === NUL_FREE)) return;
  if (schema.pattern === undefined) schema.pattern = NUL_FREE;
  else schema.allOf = [...allOf, { pattern: NUL_FREE }];
}

function acceptsFreeText(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('string') && schema.enum === undefined && schema.const === undefined;
}

/** A copy of `schema` whose every string refuses NUL; the shared pieces routes are built from stay as they are. */
function withoutNul(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const copy: JsonSchema = { ...schema };
  for (const key of schemaMaps) {
    if (isSchema(copy[key]))
      copy[key] = Object.fromEntries(Object.entries(copy[key]).map(([name, s]) => [name, withoutNul(s)]));
  }
  for (const key of schemaLists) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(withoutNul);
  }
  for (const key of schemaSlots) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(withoutNul);
    else if (isSchema(copy[key])) copy[key] = withoutNul(copy[key]);
  }
  if (acceptsFreeText(copy)) addNulRule(copy);
  // A map with free keys (a Record): its keys are client strings too.
  if (isSchema(copy.patternProperties) || isSchema(copy.additionalProperties)) {
    const names: JsonSchema = isSchema(copy.propertyNames) ? copy.propertyNames : {};
    addNulRule(names);
    copy.propertyNames = names;
  }
  return copy;
}

const requestParts = ['body', 'querystring', 'params', 'headers'] as const;

/** onRoute hook: every request schema of the route refuses NUL in its strings (see NUL_FREE). */
export function refuseNulInRequests(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema) return;
  const rewritten: FastifySchema = { ...schema };
  for (const part of requestParts) if (schema[part] !== undefined) rewritten[part] = withoutNul(schema[part]);
  route.schema = rewritten;
}

/** Shared-schema registration for both validators (`Type.Ref` targets). */
export function addSharedSchema(schema: { $id?: string }): void {
  if (!schema.$id) throw new Error('a shared schema needs an $id');
  for (const ajv of [bodyAjv, paramAjv]) if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
}

/** Turns ajv errors into the contract's `"<field path>: <what is wrong>"` strings. */
export function formatValidationErrors(errors: ErrorObject[], part: string | undefined): string[] {
  const messages = validationProblems(errors).map((p) => `${p.path || part || 'body'}: ${p.message}`);
  return [...new Set(messages)];
}
