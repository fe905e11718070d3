import type { Insertable } from 'kysely';
import { assertPublicUrl, UnsafeUrlError } from '../../http/address-guard.js';
import { ValidationError } from '../../http/errors.js';
import { slugify } from '../../http/slug.js';
import { toMinorUnits } from '../../schemas/money.js';
import { fieldPatternProblem } from './field-pattern.js';
import type { ProductType, ProductVariantsTable } from './products.table.js';
import { type CustomFieldInput, settingsKey, type VariantInput } from './schema.js';

/**
 * Turns a variant of a request body into column values, checking what a schema cannot (the
 * document marks each of these with an `x-` keyword, src/schemas/rules.ts): money precision
 * and the currency of the shop, min ≤ max quantities, unique gateways, custom fields whose
 * ids do not repeat and whose pattern RE2 compiles (field-pattern.ts). `null` in an optional
 * field means "not set".
 */
export interface StoredGateway {
  gateway: string;
  rules: { blockVpn: boolean };
  /** Minor units, or null for the variant price. */
  price: number | null;
}

export interface StoredCustomField {
  id: string;
  name: string;
  type: string;
  required: boolean;
  placeholder: string | null;
  regex: string | null;
}

type VariantColumns = Required<
  Omit<
    Insertable<ProductVariantsTable>,
    | 'id'
    | 'shop_id'
    | 'product_id'
    | 'position'
    | 'created_at'
    | 'updated_at'
    | 'deleted_at'
    | 'stock'
    | 'available_serials'
  >
>;

export interface PreparedVariant {
  id: number | undefined;
  columns: VariantColumns;
  /** New stock of a service/dynamic variant; undefined keeps the current one on update. */
  stock: number | null | undefined;
  /** New undelivered serials; undefined keeps the current ones on update. */
  serials: string[] | undefined;
  /** The files a file variant delivers, in order; undefined for other types. */
  fileIds: string[] | undefined;
}

/** Random characters of a generated licence key: a pattern with fewer is too easy to guess. */
const MIN_KEY_PATTERN_XS = 8;

export function prepareCustomFields(fields: CustomFieldInput[], at: string): StoredCustomField[] {
  const ids = new Set<string>();
  return fields.map((field, i) => {
    const id = field.id ?? (slugify(field.name, 64) || `field-${i + 1}`);
    if (ids.has(id)) throw ValidationError.field(`${at}[${i}].id`, `duplicates another field's id "${id}"`);
    ids.add(id);
    const problem = field.regex ? fieldPatternProblem(field.regex) : undefined;
    if (problem) throw ValidationError.field(`${at}[${i}].regex`, problem);
    return {
      id,
      name: field.name,
      type: field.type,
      required: field.required ?? false,
      placeholder: field.placeholder ?? null,
      regex: field.regex ?? null,
    };
  });
}

/** Serials from an array or a delimited text: trimmed, empty ones dropped, duplicates removed on request. */
export function parseSerials(serials: string[] | string, delimiter: string, removeDuplicates: boolean): string[] {
  const parts = typeof serials === 'string' ? serials.split(delimiter === '\n' ? /\r?\n/ : delimiter) : serials;
  const values = parts.map((s) => s.trim()).filter((s) => s.length > 0);
  return removeDuplicates ? [...new Set(values)] : values;
}

export function prepareVariant(variant: VariantInput, index: number, currency: string): PreparedVariant {
  const at = `variants[${index}]`;
  if (variant.priceDetails.currency != null && variant.priceDetails.currency !== currency) {
    throw ValidationError.field(`${at}.priceDetails.currency`, `must be the shop's currency ${currency}`);
  }
  const price = toMinorUnits(variant.priceDetails.amount, currency, `${at}.priceDetails.amount`);
  const type: ProductType = variant.productType;
  const key = settingsKey[type];
  // The schema requires asService and asDynamic for their types; asSerials may be left out.
  const settings = variant[key];
  const minAmount = settings?.minAmount ?? 1;
  const maxAmount = settings?.maxAmount ?? null;
  if (maxAmount !== null && maxAmount < minAmount)
    throw ValidationError.field(`${at}.${key}.maxAmount`, 'must be at least minAmount');

  const gateways: StoredGateway[] = [];
  for (const [i, g] of (variant.gateways ?? []).entries()) {
    if (gateways.some((x) => x.gateway === g.gateway))
      throw ValidationError.field(`${at}.gateways[${i}].gateway`, `lists ${g.gateway} twice`);
    const override = g.price == null ? null : toMinorUnits(g.price, currency, `${at}.gateways[${i}].price`);
    gateways.push({ gateway: g.gateway, rules: { blockVpn: g.rules?.blockVpn ?? false }, price: override });
  }

  const asSerials = variant.asSerials;
  const delimiter = asSerials?.delimiter ?? '\n';
  const removeDuplicates = asSerials?.removeDuplicates ?? false;
  const asFile = type === 'file' ? variant.asFile! : undefined;
  const license = prepareLicense(variant, at);
  return {
    id: variant.id ?? undefined,
    columns: {
      title: variant.title,
      description: variant.description ?? null,
      price,
      product_type: type,
      service_text: type === 'service' ? variant.asService!.text : null,
      dynamic_url: type === 'dynamic' ? variant.asDynamic!.externalUrl : null,
      serial_delimiter: type === 'serials' ? delimiter : null,
      remove_duplicates: removeDuplicates ? 1 : 0,
      min_amount: minAmount,
      max_amount: maxAmount,
      gateways: JSON.stringify(gateways),
      custom_fields: JSON.stringify(prepareCustomFields(variant.customFields ?? [], `${at}.customFields`)),
      customer_note: variant.customerNote ?? null,
      redirect_url: variant.redirectUrl ?? null,
      warranty_text: variant.warranty?.text ?? null,
      warranty_seconds: variant.warranty?.durationSeconds ?? null,
      file_download_limit: asFile?.downloadLimit ?? null,
      file_link_hours: asFile?.linkHours ?? null,
      ...license,
    },
    stock:
      type === 'service'
        ? variant.asService!.stock
        : type === 'dynamic'
          ? variant.asDynamic!.stock
          : type === 'file'
            ? variant.asFile!.stock
            : undefined,
    fileIds: asFile?.fileIds,
    serials:
      type === 'serials' && asSerials?.serials != null
        ? parseSerials(asSerials.serials, delimiter, removeDuplicates)
        : undefined,
  };
}

type LicenseColumns = Pick<
  VariantColumns,
  'license_enabled' | 'license_activation_limit' | 'license_valid_days' | 'license_expires_at' | 'license_key_pattern'
>;

/** The `license` option as columns, refusing what would be stored and never used. */
function prepareLicense(variant: VariantInput, at: string): LicenseColumns {
  const license = variant.license;
  if (!license)
    return {
      license_enabled: 0,
      license_activation_limit: null,
      license_valid_days: null,
      license_expires_at: null,
      license_key_pattern: null,
    };
  if (variant.productType === 'dynamic')
    throw ValidationError.field(
      `${at}.license`,
      'is not available on dynamic variants: their delivery comes from your URL',
    );
  if (license.validDays != null && license.expiresAt != null)
    throw ValidationError.field(`${at}.license.expiresAt`, 'cannot be set together with validDays');
  if (license.keyPattern != null) {
    if (variant.productType === 'serials')
      throw ValidationError.field(
        `${at}.license.keyPattern`,
        'is not used on serials variants: each serial is its key',
      );
    const xs = [...license.keyPattern].filter((c) => c === 'X').length;
    if (xs < MIN_KEY_PATTERN_XS)
      throw ValidationError.field(`${at}.license.keyPattern`, `needs at least ${MIN_KEY_PATTERN_XS} X characters`);
    if (/[\p{Cc}\s]/u.test(license.keyPattern))
      throw ValidationError.field(`${at}.license.keyPattern`, 'must not contain spaces or control characters');
  }
  return {
    license_enabled: 1,
    license_activation_limit: license.activationLimit ?? null,
    license_valid_days: license.validDays ?? null,
    license_expires_at: license.expiresAt == null ? null : Date.parse(license.expiresAt),
    license_key_pattern: license.keyPattern ?? null,
  };
}

/**
 * Dynamic variants' delivery URLs must point at public addresses (unless the server allows
 * private ones), checked when the product is saved so the owner hears it then rather than at
 * the first sale. A name that does not resolve yet is accepted: the delivery itself connects
 * only to a checked public address (http/outbound.ts) whatever the name resolves to by then.
 */
export async function checkDeliveryUrls(variants: VariantInput[], allowPrivate: boolean): Promise<void> {
  await Promise.all(
    variants.map(async (variant, index) => {
      if (variant.productType !== 'dynamic' || !variant.asDynamic) return;
      try {
        await assertPublicUrl(variant.asDynamic.externalUrl, allowPrivate, { acceptUnresolvable: true });
      } catch (err) {
        if (err instanceof UnsafeUrlError)
          throw ValidationError.field(`variants[${index}].asDynamic.externalUrl`, err.message);
        throw err;
      }
    }),
  );
}
