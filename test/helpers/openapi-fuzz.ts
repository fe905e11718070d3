import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { generateSync } from 'json-schema-faker';

/**
 * A fuzzer driven by the app's own /openapi.json (issue 19 item 17): for an operation it makes
 * requests that are valid by the document (json-schema-faker, seeded) and requests that are
 * invalid by it in one place (a mutation: a required field dropped, a wrong type, a string over
 * maxLength, a number under minimum, a pattern or format broken, an unknown enum value, too
 * many items). Every request is checked against the document with ajv before it is sent, so
 * "valid" and "invalid" mean what the document says, not what the generator meant.
 *
 * Rules the document states with its `x-` keywords (see src/schemas/rules.ts) are honoured
 * when generating valid requests: ids that must name objects of the shop come from the
 * fixture, amounts get the shop currency's decimals, bounds that must follow a sibling do.
 */
type Json = unknown;
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  if?: Schema;
  then?: Schema;
  else?: Schema;
  not?: Schema;
  additionalProperties?: Schema | boolean;
  [extension: `x-${string}`]: unknown;
}

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface FuzzOperation {
  method: string;
  path: string;
  params: Param[];
  body: Schema | undefined;
  multipart: boolean;
}

export interface FuzzRequest {
  path: Record<string, Json>;
  query: Record<string, Json>;
  headers: Record<string, Json>;
  body: Json;
}

export interface Mutation {
  request: FuzzRequest;
  /** Where and how the request was broken, for failure messages. */
  what: string;
}

/** The document's operations, with their parameters and JSON (or multipart) body schema. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p: any) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          schema: p.schema ?? {},
        })),
        body: content['application/json']?.schema ?? content['multipart/form-data']?.schema,
        multipart: Boolean(content['multipart/form-data']),
      });
    }
  }
  return out;
}

/**
 * The document's validator. Path and query values are generated typed (7, not "7") and sent
 * as their text, so both are checked the same way; `multipleOfPrecision` is the service's (a
 * percentage of 0.29 is a multiple of 0.01 although 0.29 / 0.01 is 28.999999999999996).
 */
export function documentValidator(): (schema: Schema, value: Json) => boolean {
  const ajv = new Ajv({ strict: false, allErrors: false, multipleOfPrecision: 9, validateFormats: true });
  (formats as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  const cache = new Map<Schema, ValidateFunction>();
  return (schema, value) => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(schema as object);
      cache.set(schema, validate);
    }
    return validate(value) as boolean;
  };
}

/** The parameters of one location as one object schema. */
export function paramsSchema(op: FuzzOperation, where: Param['in']): Schema {
  const params = op.params.filter((p) => p.in === where);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

export function isValid(
  op: FuzzOperation,
  request: FuzzRequest,
  valid: (schema: Schema, value: Json) => boolean,
): boolean {
  for (const where of ['path', 'query', 'header'] as const) {
    const values = where === 'header' ? request.headers : request[where];
    if (!valid(paramsSchema(op, where), values)) return false;
  }
  return op.body === undefined || op.multipart || valid(op.body, request.body);
}

const types = (schema: Schema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * The schema that applies to `value`: allOf merged, if/then/else decided on the value, the
 * first anyOf/oneOf branch it matches. Properties of the parts are merged keyword by keyword.
 */
export function effective(schema: Schema, value: Json, valid: (schema: Schema, value: Json) => boolean): Schema {
  let out: Schema = { ...schema };
  const merge = (part: Schema) => {
    const resolved = effective(part, value, valid);
    const properties = { ...out.properties };
    for (const [name, s] of Object.entries(resolved.properties ?? {})) properties[name] = { ...properties[name], ...s };
    // Two patterns both apply (a field's own and the NUL rule in an allOf): keep both.
    const patterns = [
      ...((out['x-patterns'] as string[] | undefined) ?? []),
      ...(out.pattern && resolved.pattern && out.pattern !== resolved.pattern ? [resolved.pattern] : []),
    ];
    out = {
      ...out,
      ...resolved,
      properties,
      required: [...new Set([...(out.required ?? []), ...(resolved.required ?? [])])],
    };
    if (patterns.length > 0) out = { ...out, pattern: schema.pattern ?? out.pattern, 'x-patterns': patterns };
  };
  delete out.allOf;
  delete out.if;
  delete out.then;
  delete out.else;
  for (const part of schema.allOf ?? []) merge(part);
  if (schema.if) {
    const branch = valid(schema.if, value) ? schema.then : schema.else;
    if (branch) merge(branch);
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const match = branches.find((b) => valid(b, value));
    if (match) {
      delete out.anyOf;
      delete out.oneOf;
      merge(match);
    }
  }
  return out;
}

/** Ids of the test's shop by the kind an `x-references` keyword names. */
export type References = Record<string, number[] | string[]>;

export interface Generator {
  random: () => number;
  valid: (schema: Schema, value: Json) => boolean;
  references: References;
  /** Minor-unit digits of the shop currency (amounts marked `x-minor-units`). */
  currencyDigits: number;
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

/**
 * The schema as json-schema-faker reads it best: without the keywords that are not JSON
 * Schema's (`x-…`, ajv-errors' `errorMessage`), and with an object whose property names are an
 * enum (a map keyed by gateway) given those properties.
 */
function forFaker(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(forFaker);
  if (!isObject(schema)) return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-') || key === 'errorMessage') continue;
    out[key] =
      key === 'properties' && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forFaker(v)]))
        : forFaker(value);
  }
  const names = (out.propertyNames as Schema | undefined)?.enum;
  if (names && !out.properties) {
    const values =
      out.additionalProperties ??
      Object.values((out.patternProperties as Record<string, Json> | undefined) ?? {})[0] ??
      {};
    out.properties = Object.fromEntries(names.map((n) => [String(n), values]));
    delete out.patternProperties;
  }
  return out;
}

function fake(gen: Generator, schema: Schema): Json {
  return generateSync(
    forFaker(schema) as never,
    { seed: Math.floor(gen.random() * 2 ** 31), optionalsProbability: 0.6, maxItems: 3, maxLength: 40 } as never,
  );
}

/** A value valid by `schema`, with the document's `x-` rules applied; undefined if none was found. */
export function generateValid(gen: Generator, schema: Schema): Json {
  for (let attempt = 0; attempt < 20; attempt++) {
    const value = applyRules(gen, schema, conform(gen, schema, fake(gen, schema)));
    if (!JSON.stringify(value ?? null).includes('\\u0000') && gen.valid(schema, value)) return value;
  }
  return undefined;
}

/**
 * Regenerates what json-schema-faker got wrong against the schema that applies to the value:
 * a property an if/then (decided on the value, e.g. on productType) constrains further or
 * requires. Recurses into objects and arrays.
 */
function conform(gen: Generator, schema: Schema, value: Json): Json {
  const s = effective(schema, value, gen.valid);
  if (Array.isArray(value) && s.items) return value.map((item) => conform(gen, s.items!, item));
  if (!isObject(value)) return gen.valid(s, value) ? value : fake(gen, s);
  const out: Record<string, Json> = { ...value };
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    if (out[name] === undefined && !(s.required ?? []).includes(name)) continue;
    const child = out[name] === undefined ? fake(gen, prop) : out[name];
    out[name] = gen.valid(prop, child)
      ? conform(gen, prop, child)
      : conform(gen, prop, fake(gen, effective(prop, child, gen.valid)));
  }
  return out;
}

function roundTo(value: number, step: number): number {
  const digits = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
  return Number((Math.round(value / step) * step).toFixed(digits));
}

/** Applies the document's `x-` rules (and exact multipleOf) to a generated value. */
export function applyRules(gen: Generator, schema: Schema, value: Json): Json {
  if (value === undefined) return value;
  const s = effective(schema, value, gen.valid);
  const refKind = s['x-references'] as string | undefined;
  if (refKind !== undefined && value !== null && !Array.isArray(value)) {
    const ids = gen.references[refKind];
    if (!ids || ids.length === 0) throw new Error(`the fuzz fixture has no "${refKind}" to reference`);
    return pick<number | string>(gen.random, ids);
  }
  if (isObject(value)) {
    // An optional property referring to a kind the fixture has none of is left out.
    const object = value;
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const kind = prop['x-references'] as string | undefined;
      if (kind !== undefined && (gen.references[kind]?.length ?? 0) === 0 && !(s.required ?? []).includes(name))
        delete object[name];
    }
  }
  if (typeof value === 'number') {
    let n = value;
    if (s['x-minor-units']) n = roundTo(n, 10 ** -gen.currencyDigits);
    if (s.multipleOf) n = roundTo(n, s.multipleOf);
    const step = s['x-minor-units']
      ? 10 ** -gen.currencyDigits
      : (s.multipleOf ?? (types(s).includes('integer') ? 1 : 0));
    if (s.exclusiveMinimum !== undefined && n <= s.exclusiveMinimum) n = s.exclusiveMinimum + (step || 1);
    if (s.minimum !== undefined && n < s.minimum) n = s.minimum;
    if (s.maximum !== undefined && n > s.maximum) n = s.maximum;
    return n;
  }
  if (Array.isArray(value)) {
    let items = s.items ? value.map((v) => applyRules(gen, s.items!, v)) : value;
    const uniqueBy = s['x-unique-by'] as string | undefined;
    if (uniqueBy || s.uniqueItems) {
      const seen = new Set<string>();
      items = items.filter((item) => {
        const key = JSON.stringify(uniqueBy && isObject(item) ? item[uniqueBy] : item);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
    return items;
  }
  if (isObject(value)) {
    const out: Record<string, Json> = { ...value };
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      if (out[name] !== undefined) out[name] = applyRules(gen, prop, out[name]);
    }
    // A bound that must not fall below (or before) a sibling's takes the sibling's value when it
    // does; a second spelling of a field (x-alias-of) takes the field's value when both are given.
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const canonical = prop['x-alias-of'] as string | undefined;
      if (canonical !== undefined && out[name] !== undefined && out[canonical] !== undefined)
        out[name] = out[canonical];
    }
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const sibling = prop['x-at-least'] as string | undefined;
      if (!sibling) continue;
      const low = out[sibling];
      const high = out[name];
      if (low === undefined || low === null || high === undefined || high === null) continue;
      if (typeof low === 'number' && typeof high === 'number' && high < low) out[name] = low;
      if (typeof low === 'string') out[name] = low;
    }
    return out;
  }
  return value;
}

/** A valid request for the operation; path parameters named in `pathValues` take those values. */
export function validRequest(
  gen: Generator,
  op: FuzzOperation,
  pathValues: Record<string, Json>,
): FuzzRequest | undefined {
  const request: FuzzRequest = { path: {}, query: {}, headers: {}, body: undefined };
  for (const p of op.params) {
    const target = p.in === 'header' ? request.headers : request[p.in];
    if (p.in === 'path' && pathValues[p.name] !== undefined) {
      target[p.name] = pathValues[p.name];
      continue;
    }
    if (!p.required && gen.random() < 0.4) continue;
    // An optional reference to nothing the fixture has (a cursor) is left out.
    const kind = p.schema['x-references'] as string | undefined;
    if (!p.required && kind !== undefined && (gen.references[kind]?.length ?? 0) === 0) continue;
    const value = generateValid(gen, p.schema);
    if (value === undefined) return undefined;
    target[p.name] = value;
  }
  // Rules between parameters (toDate not before fromDate).
  request.query = applyRules(gen, paramsSchema(op, 'query'), request.query) as Record<string, Json>;
  if (op.body && !op.multipart) {
    request.body = generateValid(gen, op.body);
    if (request.body === undefined) return undefined;
  }
  return request;
}

/** One way to break a request: the value to put at a place of it (`DROP`: leave the place out). */
interface Site {
  what: string;
  where: 'path' | 'query' | 'headers' | 'body';
  at: (string | number)[];
  value: Json;
}
const DROP = Symbol('drop');

/** A value of a JSON type the schema does not allow. */
function wrongTypeValue(schema: Schema): Json {
  const allowed = types(schema);
  if (allowed.length === 0) return undefined;
  const candidates: Json[] = [12345, 'not-this-type', true, { wrong: 1 }, ['wrong'], 1.5];
  return candidates.find((c) => {
    const t = jsonType(c);
    return !allowed.includes(t) && !(t === 'integer' && allowed.includes('number'));
  });
}

/**
 * Values that look right and are not: impossible dates and times, addresses without a dotted
 * domain, URLs without a host or with credentials, ranges past their length. Tried first
 * against a pattern, so that a pattern that is only a shape (`\\d{4}-\\d{2}-\\d{2}`) is caught.
 */
const nearMisses = [
  '0000-00-00',
  '2026-02-29',
  '2026-02-30',
  '2026-04-31',
  '2026-13-01',
  '2026-00-10',
  '2026-01-01T24:00',
  '2026-01-01T10:60',
  '2026-01-01T10:00:61Z',
  '2026-01-01T10:00+25:00',
  '2026-01-01 10:00',
  '2026-1-1',
  '0@com',
  'a@b',
  'a b@example.com',
  '@example.com',
  'a@example..com',
  'a@-example.com',
  'https://',
  'https:// example.com',
  'https://user:pw@example.com',
  'https://a.1',
  'http://example.com',
  'https://example.com:65536',
  'ftp://example.com',
  '10.0.0.1/33',
  '300.1.1.1',
  '010.0.0.1',
  '1.2.3',
  '2001:db8:::1',
  'fe80::1%eth0',
  '2001:db8::/129',
  'ZZ',
  'EU',
  'DEU',
];

/** A string that breaks the pattern, a near miss when one does; undefined if every candidate matches it. */
function patternBreaker(random: () => number, pattern: string, current: string): string | undefined {
  const re = new RegExp(pattern, 'u');
  const near = nearMisses.filter((c) => !re.test(c));
  if (near.length > 0 && random() < 0.7) return pick(random, near);
  const candidates = [
    '',
    ' ',
    `${current} `,
    ` ${current}`,
    '!',
    '#$%',
    'a b',
    'ZZZ',
    'zzz',
    '0',
    '-',
    `${current}~`,
    '\u00e9',
    '..',
    '@',
  ];
  return candidates.find((c) => !re.test(c));
}

function formatBreaker(format: string): string | undefined {
  const broken: Record<string, string> = {
    email: '0@com',
    date: '2026-02-30',
    'date-time': '2026-13-01T00:00:00Z',
    uri: 'not a uri',
    ipv4: '300.1.1.1',
    ipv6: 'gggg::1',
  };
  return broken[format];
}

/** Ways to break one value, by what its schema constrains. */
function scalarSites(
  random: () => number,
  schema: Schema,
  value: Json,
  place: Omit<Site, 'what' | 'value'>,
  label: string,
  inUrl: boolean,
): Site[] {
  const sites: Site[] = [];
  const inPath = place.where === 'path';
  const add = (what: string, v: Json) => {
    // An empty path segment is another URL (another route, or none): not a bad value for this one.
    if (inPath && typeof v === 'string' && v.trim() === '') return;
    sites.push({ ...place, what: `${label}: ${what}`, value: v });
  };
  const t = types(schema);
  // In a URL every value is text: a number sent for a string parameter is still a string.
  const wrong = wrongTypeValue(schema);
  if (wrong !== undefined && !(inUrl && (t.includes('string') || typeof wrong !== 'string')))
    add(`wrong type ${JSON.stringify(wrong)}`, wrong);
  if (inUrl && (t.includes('integer') || t.includes('number'))) add('not a number', 'abc');
  if (schema.enum) add('unknown enum value', 'not-an-allowed-value');
  if (schema.const !== undefined)
    add('not the constant', typeof schema.const === 'string' ? `${schema.const}-other` : 'other');
  if (typeof value === 'string' || t.includes('string')) {
    const text = typeof value === 'string' ? value : 'text';
    if (schema.maxLength !== undefined && schema.maxLength < 60_000)
      add(`over maxLength ${schema.maxLength}`, (text || 'a').padEnd(schema.maxLength + 1, text.slice(-1) || 'a'));
    if (schema.minLength !== undefined && schema.minLength > 0)
      add(`under minLength ${schema.minLength}`, text.slice(0, schema.minLength - 1));
    for (const pattern of [schema.pattern, ...((schema['x-patterns'] as string[] | undefined) ?? [])]) {
      if (!pattern) continue;
      const broken = patternBreaker(random, pattern, text);
      if (broken !== undefined) add(`breaks pattern with ${JSON.stringify(broken)}`, broken);
    }
    if (schema.format) {
      const broken = formatBreaker(schema.format);
      if (broken !== undefined) add(`breaks format ${schema.format}`, broken);
    }
  }
  if (t.includes('integer') || t.includes('number')) {
    const n = typeof value === 'number' ? value : 1;
    if (schema.minimum !== undefined) add(`under minimum ${schema.minimum}`, schema.minimum - 1);
    if (schema.exclusiveMinimum !== undefined)
      add(`at exclusiveMinimum ${schema.exclusiveMinimum}`, schema.exclusiveMinimum);
    if (schema.maximum !== undefined) add(`over maximum ${schema.maximum}`, schema.maximum + 1);
    if (schema.exclusiveMaximum !== undefined)
      add(`at exclusiveMaximum ${schema.exclusiveMaximum}`, schema.exclusiveMaximum);
    if (t.includes('integer') && !t.includes('number')) add('not an integer', n + 0.5);
    if (schema.multipleOf !== undefined) add(`not a multiple of ${schema.multipleOf}`, n + schema.multipleOf / 3);
  }
  return sites;
}

function bodySites(gen: Generator, schema: Schema, value: Json, at: (string | number)[], label: string): Site[] {
  const s = effective(schema, value, gen.valid);
  const sites = scalarSites(gen.random, s, value, { where: 'body', at }, label || '(root)', false);
  if (isObject(value)) {
    const required = new Set(s.required ?? []);
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const here = label ? `${label}.${name}` : name;
      if (value[name] === undefined) {
        const wrong = wrongTypeValue(effective(prop, undefined, gen.valid));
        if (wrong !== undefined)
          sites.push({
            what: `${here}: absent, set to wrong type ${JSON.stringify(wrong)}`,
            where: 'body',
            at: [...at, name],
            value: wrong,
          });
        continue;
      }
      if (required.has(name))
        sites.push({ what: `${here}: required, dropped`, where: 'body', at: [...at, name], value: DROP });
      sites.push(...bodySites(gen, prop, value[name], [...at, name], here));
    }
  }
  if (Array.isArray(value)) {
    if (s.maxItems !== undefined && s.maxItems < 2000 && value.length > 0) {
      sites.push({
        what: `${label}: over maxItems ${s.maxItems}`,
        where: 'body',
        at,
        value: Array.from({ length: s.maxItems + 1 }, (_, i) => value[i % value.length]),
      });
    }
    if (s.minItems !== undefined && s.minItems > 0)
      sites.push({
        what: `${label}: under minItems ${s.minItems}`,
        where: 'body',
        at,
        value: value.slice(0, s.minItems - 1),
      });
    if (s.items)
      for (const [i, item] of value.slice(0, 2).entries())
        sites.push(...bodySites(gen, s.items!, item, [...at, i], `${label}[${i}]`));
  }
  return sites;
}

/** The request with the site's value put in place. */
function applySite(request: FuzzRequest, site: Site): FuzzRequest {
  const out = structuredClone(request);
  if (site.where === 'body' && site.at.length === 0) {
    out.body = site.value === DROP ? undefined : structuredClone(site.value);
    return out;
  }
  let holder: any = site.where === 'body' ? out.body : out[site.where];
  for (const key of site.at.slice(0, -1)) holder = holder[key];
  const last = site.at[site.at.length - 1]!;
  if (site.value === DROP) delete holder[last];
  else holder[last] = structuredClone(site.value);
  return out;
}

/** Requests invalid by the document in one place each, made from a valid one. */
export function mutations(gen: Generator, op: FuzzOperation, valid: FuzzRequest, count: number): Mutation[] {
  const sites: Site[] = [];
  for (const p of op.params) {
    const where = p.in === 'header' ? 'headers' : p.in;
    sites.push(
      ...scalarSites(gen.random, p.schema, valid[where][p.name], { where, at: [p.name] }, `${p.in} ${p.name}`, true),
    );
    if (p.in === 'query' && p.required)
      sites.push({ what: `query ${p.name}: required, dropped`, where: 'query', at: [p.name], value: DROP });
  }
  if (op.body && !op.multipart) sites.push(...bodySites(gen, op.body, valid.body, [], ''));
  // A random sample of the places, each checked to be invalid by the document.
  const out: Mutation[] = [];
  const order = sites.map((site) => ({ site, k: gen.random() })).sort((a, b) => a.k - b.k);
  for (const { site } of order) {
    if (out.length >= count) break;
    const request = applySite(valid, site);
    if (!isValid(op, request, gen.valid))
      out.push({ request, what: `${site.where === 'body' ? 'body ' : ''}${site.what}` });
  }
  return out;
}

/** The request as URL, headers and payload for app.inject. */
export function toInject(
  op: FuzzOperation,
  request: FuzzRequest,
): { url: string; headers: Record<string, string>; payload?: string } {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(request.path[name])));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query))
    if (value !== undefined) query.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers[name] = typeof value === 'string' ? value : JSON.stringify(value);
  const qs = query.toString();
  if (op.body === undefined || op.multipart) return { url: qs ? `${path}?${qs}` : path, headers };
  return {
    url: qs ? `${path}?${qs}` : path,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(request.body ?? {}),
  };
}

/** `a.b[2].c` → ['a', 'b', 2, 'c']. */
function segments(path: string): (string | number)[] {
  return [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

/** Whether some schema on the way to `path` states an `x-rule`. */
function ruleOnPath(gen: Generator, schema: Schema | undefined, value: Json, path: (string | number)[]): boolean {
  if (!schema) return false;
  const s = effective(schema, value, gen.valid);
  if (s['x-rule'] !== undefined) return true;
  const [head, ...rest] = path;
  if (head === undefined) return false;
  if (typeof head === 'number') return ruleOnPath(gen, s.items, Array.isArray(value) ? value[head] : undefined, rest);
  const child =
    s.properties?.[head] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
  return ruleOnPath(gen, child, isObject(value) ? value[head] : undefined, rest);
}

/**
 * Whether a 400 to a valid request is one the document announces: every error names a field
 * (of the body or a parameter) whose schema, or a schema on the way to it, has an `x-rule`.
 */
export function announcedByRules(gen: Generator, op: FuzzOperation, request: FuzzRequest, errors: string[]): boolean {
  return (
    errors.length > 0 &&
    errors.every((error) => {
      const path = segments(error.slice(0, error.indexOf(': ')));
      const param = op.params.find((p) => p.name === path[0]);
      if (param) return ruleOnPath(gen, param.schema, undefined, path.slice(1));
      return op.body !== undefined && ruleOnPath(gen, op.body, request.body, path);
    })
  );
}
