import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * Shared schema pieces: ids, enums, nullable values, paging, timestamps and the envelope.
 * Every route builds its schemas from these so the wire shapes stay uniform.
 */

/** Positive 32-bit integer id in a path or body; anything else is a 400, never a 404. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Positive integer id.' });
export const ShopParams = Type.Object({ shopId: Id });
export type ShopParams = Static<typeof ShopParams>;

/** A string enum as plain JSON Schema `enum`, so validation messages and OpenAPI list the values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `T | null` as a JSON Schema type array (OpenAPI 3.1 style) rather than an anyOf. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

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
  401: 'Missing or unknown API key',
  403: 'The key lacks the scope, or the storefront is locked',
  404: 'Not found in this shop',
  409: 'State or uniqueness conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Refused by a business rule',
  429: 'Rate limited',
};

function errorResponses(statuses: number[]) {
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
  searchString: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring match on the text fields.' })),
  PageNumber: Type.Optional(Type.Integer({ ...pageNumberRange, ...alias('pageNumber') })),
  PageSize: Type.Optional(Type.Integer({ ...pageSizeRange, ...alias('pageSize') })),
});
export type PageQuery = Static<typeof PageQuery>;

export const CursorPageQuery = Type.Composite([
  PageQuery,
  Type.Object({
    cursor: Type.Optional(Type.String({ maxLength: 512, description: 'Opaque keyset cursor from a previous nextCursor; when given, pageNumber is ignored.' })),
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
