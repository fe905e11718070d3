/**
 * OpenAPI extension keywords for the rules of a request that JSON Schema cannot state: they
 * depend on the shop's data or its currency, or tie one field to another. The services check
 * them (a 400 naming the field, unless the description says otherwise); ajv ignores them. The
 * document's introduction (src/http/openapi.ts) explains each, and the document-driven fuzz
 * test (test/http/openapi-fuzz.test.ts) honours them, so a rule added without its keyword
 * shows up there as a valid request refused.
 */

/** Kinds of objects of the shop a request field can name. */
export type ReferenceKind =
  | 'product'
  | 'variant'
  | 'publicProduct'
  | 'publicVariant'
  | 'listing'
  | 'invoice'
  | 'invoicePart'
  | 'cursor'
  | 'currency'
  | 'file';

/**
 * `x-references`: the value (an id, or a string such as an invoice id) must name an existing
 * object of this kind in the shop: `variant` a variant of the product the path names,
 * `publicProduct` a product that is neither private nor internal and `publicVariant` a variant
 * of it, `invoicePart` a part of the invoice the path names, `cursor` a `nextCursor` this list
 * answered, `currency` the shop's currency code, `file` a file the shop uploaded.
 */
export const references = (kind: ReferenceKind) => ({ 'x-references': kind });

/**
 * `x-minor-units`: an amount in the shop's currency, with at most as many decimals as its
 * minor unit (2 for USD, 0 for JPY, 3 for KWD).
 */
export const minorUnits = () => ({ 'x-minor-units': true });

/** `x-at-least`: not below the named sibling field (for dates: not before it) when both are set. */
export const atLeast = (sibling: string) => ({ 'x-at-least': sibling });

/** `x-unique-by`: no two items of the array have the same value of this property. */
export const uniqueBy = (property: string) => ({ 'x-unique-by': property });

/**
 * `x-rule`: a further rule on this field, stated in words, that depends on stored data (a
 * variant's custom fields) or on a check no schema can make (a regular expression's syntax,
 * an address range's host bits). A 400 naming the field when broken.
 */
export const rule = (text: string) => ({ 'x-rule': text });

/**
 * Parts of one order. A completion asks each dynamic part's URL in turn, so this also bounds how
 * long one request can take (and so the idempotency lease, src/http/idempotency.ts).
 */
export const MAX_ORDER_PARTS = 25;
