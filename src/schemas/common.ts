import {
  type ObjectOptions,
  type Static,
  type TOptional,
  type TProperties,
  type TSchema,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';
import { references } from './rules.js';

/**
 * Shared schema pieces: ids, enums, nullable values, paging, timestamps and the envelope.
 * Every route builds its schemas from these so the wire shapes stay uniform.
 */

/** Positive 32-bit integer id in a path or body; anything else is a 400, never a 404. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Positive integer id.' });
export const ShopParams = Type.Object({ shopId: Id });
export type ShopParams = Static<typeof ShopParams>;

/** A string enum as plain JSON Schema `enum`, so validation messages and OpenAPI list the values. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * `T | null`: a type array (OpenAPI 3.1 style) for typed schemas, `null` added to an `enum`,
 * or an extra `anyOf` branch for unions. Request fields that accept null take it as "not set".
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const {
    type,
    enum: values,
    anyOf,
    ...rest
  } = schema as unknown as { type?: string | string[]; enum?: unknown[]; anyOf?: TSchema[] };
  if (anyOf) return Type.Unsafe<Static<T> | null>({ ...rest, anyOf: [...anyOf, Type.Null()] });
  if (type === undefined) throw new Error('Nullable needs a schema with a type or an anyOf');
  if (Array.isArray(type) && type.includes('null')) return schema as unknown as TUnsafe<Static<T> | null>;
  return Type.Unsafe<Static<T> | null>({
    ...rest,
    type: [...(Array.isArray(type) ? type : [type]), 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  });
}

/**
 * An optional request field that also takes `null`, meaning the same as leaving it out: its
 * default (or, on a partial update, "clear" where the field's description says so). What a GET
 * answers can so always be sent back as a PUT body.
 */
export function OptionalNullable<T extends TSchema>(schema: T) {
  return Type.Optional(Nullable(schema));
}

/**
 * A partial update's body: every field of `properties` optional and nullable. Omitted keeps a
 * field; null sets it back to its default (for free texts: clears it).
 */
export function Patch<T extends TProperties>(properties: T, options: ObjectOptions = {}) {
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name, OptionalNullable(schema)]),
  );
  return Type.Object(fields as { [K in keyof T]: TOptional<TUnsafe<Static<T[K]> | null>> }, options);
}

/**
 * A free text that must not be blank. Surrounding whitespace is trimmed before it is stored;
 * `maxLength` counts the text as sent, so the stored text is within it too.
 */
export function NonBlankText(options: { maxLength: number; description?: string }) {
  const trimmed = 'Surrounding whitespace is trimmed; it must not be blank.';
  return Type.String({
    minLength: 1,
    maxLength: options.maxLength,
    pattern: '\\S',
    description: options.description ? `${options.description} ${trimmed}` : trimmed,
    errorMessage: { pattern: 'must not be blank' },
  });
}

/**
 * An e-mail address, the one form every request field holding one accepts: ajv-formats'
 * `email` format written out as a pattern, so that the document says exactly what is refused
 * (`0@com` is: the domain needs a dot). Stored lower-case.
 */
export const EMAIL_PATTERN =
  "^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\\.)+[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$";
export const EMAIL = new RegExp(EMAIL_PATTERN);
export function Email(description?: string) {
  return Type.String({
    format: 'email',
    pattern: EMAIL_PATTERN,
    maxLength: 254,
    description: `An e-mail address (at most 254 characters; the domain has a dot).${description ? ` ${description}` : ''}`,
    errorMessage: { format: 'must be an e-mail address', pattern: 'must be an e-mail address' },
  });
}

/**
 * http(s) URLs as a pattern that every URL parser (WHATWG's included) reads as one: a host
 * name whose last label starts with a letter, a dotted IPv4 address or a bracketed IPv6
 * address, an optional port, no credentials, no spaces. Punycode (`xn--`) labels are not
 * taken: a malformed one would pass the pattern and fail the parser.
 */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
export const IPV4_PATTERN = `${OCTET}(?:\\.${OCTET}){3}`;
const H16 = '[0-9a-fA-F]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4_PATTERN})`;
/** RFC 3986's IPv6address, written out. */
export const IPV6_PATTERN = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
]
  .map((alternative) => `(?:${alternative})`)
  .join('|');
const LABEL = '(?![Xx][Nn]--)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const TOP_LABEL = '(?![Xx][Nn]--)[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const HOST = `(?:(?:${LABEL}\\.)*${TOP_LABEL}\\.?|${IPV4_PATTERN}|\\[(?:${IPV6_PATTERN})\\])`;
const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|\\d{1,4})?)?';
const urlPattern = (schemes: string) => `^${schemes}://${HOST}${PORT}(?:[/?#]\\S*)?$`;

function UrlSchema(schemes: string, what: string, description?: string) {
  return Type.String({
    format: 'uri',
    pattern: urlPattern(schemes),
    maxLength: 2048,
    description: `An ${what} URL: a host name, IPv4 or [IPv6] address, an optional port, no credentials or spaces; at most 2048 characters.${description ? ` ${description}` : ''}`,
    errorMessage: { format: `must be an ${what} URL`, pattern: `must be an ${what} URL` },
  });
}
export const HttpsUrl = (description?: string) => UrlSchema('https', 'https', description);
export const HttpUrl = (description?: string) => UrlSchema('https?', 'http or https', description);

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp.' });
export const NullableTimestamp = Nullable(Timestamp);

export function toIso(ms: number): string;
export function toIso(ms: number | null): string | null;
export function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The contract's envelope around every JSON answer. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({
    data,
    message: Type.String(),
    errors: Type.Array(Type.String()),
    code: Type.String(),
  });
}

export const ErrorEnvelope = Type.Object(
  {
    data: Type.Null(),
    message: Type.String({ description: 'A human sentence.' }),
    errors: Type.Array(Type.String(), { description: 'One string per problem, "<field path>: <what is wrong>".' }),
    code: Type.String({ description: 'Stable machine word, e.g. validation_error, not_found, conflict.' }),
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);

export function ok<T>(data: T): { data: T; message: string; errors: string[]; code: string } {
  return { data, message: 'OK', errors: [], code: 'ok' };
}

const errorRef = Type.Ref(ErrorEnvelope);
const errorDescriptions: Record<number, string> = {
  400: 'Validation error',
  401: 'Missing or unknown API key (owner paths) or customer session (customer area)',
  403: 'The key lacks the scope, or the storefront is locked',
  404: 'Not found in this shop',
  409: 'State or uniqueness conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Refused by a business rule',
  428: 'A solved proof-of-work challenge is needed (`X-Altcha`; code challenge_required)',
  429: 'Rate limited',
};

/** The error responses of these statuses (also for a route whose success is not the envelope). */
export function errorResponses(statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, { ...errorRef, description: errorDescriptions[s] }]));
}

/** Responses of an owner route: the success envelope plus the errors every owner route can give. */
export function ownerResponses<T extends TSchema>(data: T, extra: number[] = []) {
  return { 200: Envelope(data), ...errorResponses([400, 401, 403, 404, 429, ...extra]) };
}

/** Responses of a public route. */
export function publicResponses<T extends TSchema>(data: T, extra: number[] = []) {
  return { 200: Envelope(data), ...errorResponses([400, 404, 429, ...extra]) };
}

/** What a DELETE answers: the id of what is gone. */
export const Deleted = Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) });

const pageNumberRange = { minimum: 1, maximum: 1_000_000 };
const pageSizeRange = { minimum: 1, maximum: 100 };

/**
 * `PageNumber`/`PageSize` are what the original service's clients send; they are accepted as
 * deprecated aliases (`x-alias-of`, merged by the validator in src/http/validation.ts).
 */
const alias = (canonical: string) => ({
  deprecated: true,
  'x-alias-of': canonical,
  description: `Deprecated alias of \`${canonical}\`, as the original clients send it. Giving both with different values is a 400.`,
});

export const PageQuery = Type.Object({
  pageNumber: Type.Integer({ ...pageNumberRange, default: 1, description: '1-based page number.' }),
  pageSize: Type.Integer({ ...pageSizeRange, default: 20 }),
  searchString: Type.Optional(
    Type.String({ maxLength: 200, description: 'Case-insensitive substring match on the text fields.' }),
  ),
  PageNumber: Type.Optional(Type.Integer({ ...pageNumberRange, ...alias('pageNumber') })),
  PageSize: Type.Optional(Type.Integer({ ...pageSizeRange, ...alias('pageSize') })),
});
export type PageQuery = Static<typeof PageQuery>;

export const CursorPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    cursor: Type.Optional(
      Type.String({
        maxLength: 512,
        description:
          'Opaque keyset cursor: a nextCursor this list answered (any other text is a 400); when given, pageNumber is ignored.',
        ...references('cursor'),
      }),
    ),
  }),
]);
export type CursorPageQuery = Static<typeof CursorPageQuery>;

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    pageNumber: Type.Integer(),
    pageSize: Type.Integer(),
    totalCount: Type.Integer(),
    totalPages: Type.Integer(),
  });
}

export function CursorPage<T extends TSchema>(item: T) {
  return Type.Composite([Page(item), Type.Object({ nextCursor: Nullable(Type.String()) })]);
}
