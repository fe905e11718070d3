import type { Product } from '../../api/queries/products';
import { strings } from '../../strings';
import type { ShopDates } from '../../ui/format';
import {
  type CustomFieldType,
  type Gateway,
  licensedTypes,
  type ProductBody,
  type ProductType,
  type Variant,
  type VariantBody,
  type VariantFile,
} from './catalog';

/**
 * The product form's state: the API's product with every number kept as the text the owner
 * typed (so an empty box stays empty), turned into the PUT/POST body on save. The API checks
 * the values and answers field errors, which the form shows beside the boxes.
 */
export interface CustomFieldDraft {
  key: string;
  id: string;
  name: string;
  type: CustomFieldType;
  required: boolean;
  placeholder: string;
  regex: string;
}

export interface GatewayDraft {
  gateway: Gateway;
  blockVpn: boolean;
  price: string;
}

/** When a variant's licences end: never, some days after the sale, or at one date for all. */
export type LicenseValidity = 'never' | 'days' | 'date';

export interface VariantDraft {
  key: string;
  id: number | null;
  title: string;
  description: string;
  price: string;
  productType: ProductType;
  /** Serials: the keys in stock, one per line (for a saved variant, sent only when edited). */
  serials: string;
  savedSerials: string;
  removeDuplicates: boolean;
  /** The stored setting: turning it on sends the serials, so the server removes the duplicates. */
  savedRemoveDuplicates: boolean;
  /** Service, dynamic and file: '' is unlimited. */
  stock: string;
  text: string;
  externalUrl: string;
  minAmount: string;
  maxAmount: string;
  /** File: the files delivered, in order (name and size kept to show them before the file list loads). */
  files: VariantFile[];
  /** File: downloads of each file per order, '0' unlimited ('' the API's default, 5). */
  downloadLimit: string;
  /** File: hours a download link works ('' the API's default, 24). */
  linkHours: string;
  /** Serials, service and file: each unit sold is a licence. */
  licenseEnabled: boolean;
  /** '' is unlimited. */
  activationLimit: string;
  licenseValidity: LicenseValidity;
  validDays: string;
  /** The end date (`YYYY-MM-DD`, UTC) when `licenseValidity` is `date`. */
  licenseEndDate: string;
  /** The stored end, sent back as it is while its date is not changed. */
  savedLicenseExpiresAt: string | null;
  /** Service and file: the generated keys' pattern ('' the default). */
  keyPattern: string;
  customerNote: string;
  redirectUrl: string;
  customFields: CustomFieldDraft[];
  /** Empty: every enabled gateway at the variant price. */
  gateways: GatewayDraft[];
  warrantyText: string;
  warrantyDays: string;
  /** What the server says is available now (read only). */
  stockNow: number | null;
}

export interface ProductDraft {
  title: string;
  shortDescription: string;
  description: string;
  path: string;
  metaTitle: string;
  metaDescription: string;
  unlisted: boolean;
  private: boolean;
  onHold: boolean;
  isInternal: boolean;
  customerNote: string;
  chatEnabled: boolean;
  chatRequired: boolean;
  guildId: string;
  roleIds: string;
  variants: VariantDraft[];
}

let nextKey = 0;
export const newKey = () => `k${++nextKey}`;

const text = (value: string | null | undefined) => value ?? '';
const numberText = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));

export function emptyVariant(index: number): VariantDraft {
  return {
    key: newKey(),
    id: null,
    title: index === 0 ? 'Default' : `Variant ${index + 1}`,
    description: '',
    price: '',
    productType: 'serials',
    serials: '',
    savedSerials: '',
    savedRemoveDuplicates: false,
    // A key typed twice by mistake would be sold twice: a new variant removes duplicates unless the owner says not to.
    removeDuplicates: true,
    stock: '',
    text: '',
    externalUrl: '',
    minAmount: '',
    maxAmount: '',
    files: [],
    downloadLimit: '5',
    linkHours: '24',
    licenseEnabled: false,
    activationLimit: '',
    licenseValidity: 'never',
    validDays: '',
    licenseEndDate: '',
    savedLicenseExpiresAt: null,
    keyPattern: '',
    customerNote: '',
    redirectUrl: '',
    customFields: [],
    gateways: [],
    warrantyText: '',
    warrantyDays: '',
    stockNow: null,
  };
}

export function emptyProduct(): ProductDraft {
  return {
    title: '',
    shortDescription: '',
    description: '',
    path: '',
    metaTitle: '',
    metaDescription: '',
    unlisted: false,
    private: false,
    onHold: false,
    isInternal: false,
    customerNote: '',
    chatEnabled: false,
    chatRequired: false,
    guildId: '',
    roleIds: '',
    variants: [emptyVariant(0)],
  };
}

/** The shop's days, for a licence's end date (ui/format.ts `ShopDates`). */
export type DraftDates = Pick<ShopDates, 'day' | 'endOfDay'>;

function variantDraft(v: Variant, dates: DraftDates): VariantDraft {
  const settings = v.asSerials ?? v.asService ?? v.asDynamic ?? v.asFile;
  const license = v.license;
  const serials = (v.asSerials?.serials ?? []).join('\n');
  const days = v.warranty ? v.warranty.durationSeconds / 86_400 : null;
  return {
    // By id: a saved variant keeps its editor (and its restock result) when the product is read again.
    key: `variant-${v.id}`,
    id: v.id,
    title: v.title,
    description: text(v.description),
    price: String(v.priceDetails.amount),
    productType: v.productType,
    serials,
    savedSerials: serials,
    removeDuplicates: v.asSerials?.removeDuplicates ?? false,
    savedRemoveDuplicates: v.asSerials?.removeDuplicates ?? false,
    stock: numberText(v.asService?.stock ?? v.asDynamic?.stock ?? v.asFile?.stock),
    text: text(v.asService?.text),
    externalUrl: text(v.asDynamic?.externalUrl),
    minAmount: settings && settings.minAmount > 1 ? String(settings.minAmount) : '',
    maxAmount: numberText(settings?.maxAmount),
    files: v.asFile?.files ?? [],
    downloadLimit: String(v.asFile?.downloadLimit ?? 5),
    linkHours: String(v.asFile?.linkHours ?? 24),
    licenseEnabled: license !== null,
    activationLimit: numberText(license?.activationLimit),
    licenseValidity: license?.expiresAt ? 'date' : license?.validDays ? 'days' : 'never',
    validDays: numberText(license?.validDays),
    licenseEndDate: license?.expiresAt ? dates.day(license.expiresAt) : '',
    savedLicenseExpiresAt: license?.expiresAt ?? null,
    keyPattern: text(license?.keyPattern),
    customerNote: text(v.customerNote),
    redirectUrl: text(v.redirectUrl),
    customFields: v.customFields.map((f) => ({
      key: newKey(),
      id: f.id,
      name: f.name,
      type: f.type as CustomFieldType,
      required: f.required,
      placeholder: text(f.placeholder),
      regex: text(f.regex),
    })),
    gateways: v.gateways.map((g) => ({
      gateway: g.gateway as Gateway,
      blockVpn: g.rules.blockVpn,
      price: numberText(g.price),
    })),
    warrantyText: text(v.warranty?.text),
    warrantyDays: days === null ? '' : String(Math.round(days * 10_000) / 10_000),
    stockNow: v.stock,
  };
}

export function productDraft(p: Product, dates: DraftDates): ProductDraft {
  return {
    title: p.title,
    shortDescription: text(p.shortDescription),
    description: p.description,
    path: p.path,
    metaTitle: text(p.seo.metaTitle),
    metaDescription: text(p.seo.metaDescription),
    unlisted: p.unlisted,
    private: p.private,
    onHold: p.onHold,
    isInternal: p.isInternal,
    customerNote: text(p.customerNote),
    chatEnabled: p.chatIntegration?.enabled ?? false,
    chatRequired: p.chatIntegration?.required ?? false,
    guildId: text(p.chatIntegration?.guildId),
    roleIds: (p.chatIntegration?.roleIds ?? []).join(', '),
    variants: p.variants.map((v) => variantDraft(v, dates)),
  };
}

/** '' is "not given"; anything else is sent as the number it reads as (the API refuses a non-number). */
function optionalNumber(value: string): number | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : Number(trimmed);
}
const orNull = (value: string) => (value.trim() === '' ? null : value);

/**
 * A licence's end as the API takes it: the stored time while its date is unchanged, else the end
 * of the chosen day on the shop's clock (the date shown is the stored time's day on it). An
 * unparsable date is sent as typed, so the API names the field.
 */
function licenseEnd(v: VariantDraft, dates: DraftDates): string | null {
  const date = v.licenseEndDate.trim();
  if (date === '') return null;
  if (v.savedLicenseExpiresAt && dates.day(v.savedLicenseExpiresAt) === date) return v.savedLicenseExpiresAt;
  return dates.endOfDay(date);
}

function licenseBody(v: VariantDraft, dates: DraftDates): VariantBody['license'] {
  if (!v.licenseEnabled || !licensedTypes.includes(v.productType)) return null;
  return {
    activationLimit: optionalNumber(v.activationLimit),
    validDays: v.licenseValidity === 'days' ? optionalNumber(v.validDays) : null,
    expiresAt: v.licenseValidity === 'date' ? licenseEnd(v, dates) : null,
    // A serial is its own key: the pattern is for generated keys only.
    keyPattern: v.productType === 'serials' ? null : orNull(v.keyPattern),
  };
}

function variantBody(v: VariantDraft, dates: DraftDates): VariantBody {
  const limits = { minAmount: optionalNumber(v.minAmount), maxAmount: optionalNumber(v.maxAmount) };
  const body: VariantBody = {
    title: v.title,
    description: orNull(v.description),
    // A missing price is sent missing, so the API names the field.
    priceDetails: { amount: optionalNumber(v.price) as number },
    productType: v.productType,
    asSerials: null,
    asService: null,
    asDynamic: null,
    asFile: null,
    license: licenseBody(v, dates),
    gateways: v.gateways.map((g) => ({
      gateway: g.gateway,
      rules: { blockVpn: g.blockVpn },
      price: optionalNumber(g.price),
    })),
    customerNote: orNull(v.customerNote),
    redirectUrl: orNull(v.redirectUrl),
    customFields: v.customFields.map((f) => ({
      id: orNull(f.id),
      name: f.name,
      type: f.type,
      required: f.required,
      placeholder: orNull(f.placeholder),
      regex: orNull(f.regex),
    })),
    warranty:
      v.warrantyText.trim() === '' && v.warrantyDays.trim() === ''
        ? null
        : {
            text: v.warrantyText,
            durationSeconds: Math.round((optionalNumber(v.warrantyDays) ?? 0) * 86_400),
          },
  };
  if (v.id !== null) body.id = v.id;
  if (v.productType === 'serials') {
    // A saved variant's stock is kept unless the owner edited the list, or turned on the removal of
    // duplicates (which the server applies to the serials sent with it).
    const edited = v.id === null || v.serials !== v.savedSerials || (v.removeDuplicates && !v.savedRemoveDuplicates);
    body.asSerials = {
      ...(edited ? { serials: v.serials, delimiter: '\n' } : {}),
      removeDuplicates: v.removeDuplicates,
      ...limits,
    };
  } else if (v.productType === 'service') {
    body.asService = { stock: optionalNumber(v.stock), text: v.text, ...limits };
  } else if (v.productType === 'file') {
    body.asFile = {
      fileIds: v.files.map((f) => f.id),
      downloadLimit: optionalNumber(v.downloadLimit),
      linkHours: optionalNumber(v.linkHours),
      stock: optionalNumber(v.stock),
      ...limits,
    };
  } else {
    body.asDynamic = { stock: optionalNumber(v.stock), externalUrl: v.externalUrl, ...limits };
  }
  return body;
}

export function productBody(d: ProductDraft, dates: DraftDates): ProductBody {
  const roleIds = d.roleIds
    .split(/[\s,]+/)
    .map((r) => r.trim())
    .filter(Boolean);
  const chatUsed = d.chatEnabled || d.chatRequired || d.guildId.trim() !== '' || roleIds.length > 0;
  return {
    title: d.title,
    description: d.description,
    shortDescription: orNull(d.shortDescription),
    path: orNull(d.path),
    seo: { metaTitle: orNull(d.metaTitle), metaDescription: orNull(d.metaDescription) },
    unlisted: d.unlisted,
    private: d.private,
    onHold: d.onHold,
    isInternal: d.isInternal,
    customerNote: orNull(d.customerNote),
    chatIntegration: chatUsed
      ? { enabled: d.chatEnabled, required: d.chatRequired, guildId: orNull(d.guildId), roleIds }
      : null,
    variants: d.variants.map((v) => variantBody(v, dates)),
  };
}

/**
 * What the form asks for that the API would read otherwise: a validity chosen needs its days or
 * date (left empty, the API would take "never expires"), and a file variant at least one file.
 */
export function productChecks(d: ProductDraft): Record<string, string | undefined> {
  const problems: Record<string, string | undefined> = {};
  d.variants.forEach((v, i) => {
    if (v.productType === 'file' && v.files.length === 0)
      problems[`variants.${i}.files`] = strings.productEdit.chooseAtLeastOne;
    if (!v.licenseEnabled || !licensedTypes.includes(v.productType)) return;
    if (v.licenseValidity === 'days' && v.validDays.trim() === '')
      problems[`variants.${i}.validDays`] = strings.productEdit.enterHowManyDays;
    if (v.licenseValidity === 'date' && v.licenseEndDate.trim() === '')
      problems[`variants.${i}.licenseEndDate`] = strings.productEdit.chooseTheDateThe;
  });
  return problems;
}

/** The draft's field for each part of a variant's delivery settings (`asSerials`, `asService`, `asDynamic`, `asFile`). */
const settingsFields: Record<string, string> = {
  serials: 'serials',
  delimiter: 'serials',
  removeDuplicates: 'removeDuplicates',
  stock: 'stock',
  text: 'text',
  externalUrl: 'externalUrl',
  fileIds: 'files',
  downloadLimit: 'downloadLimit',
  linkHours: 'linkHours',
  minAmount: 'minAmount',
  maxAmount: 'maxAmount',
};

/** The draft's field for each part of a variant's `license`. */
const licenseFields: Record<string, string> = {
  activationLimit: 'activationLimit',
  validDays: 'validDays',
  expiresAt: 'licenseEndDate',
  keyPattern: 'keyPattern',
};

/**
 * The form field a path of the product body belongs to (the draft is not shaped like the body:
 * `variants[0].priceDetails.amount` is the variant's `price` box); undefined for none, so the
 * problem shows above the form.
 */
export function productFieldOf(path: string): string | undefined {
  const top: Record<string, string> = {
    'seo.metaTitle': 'metaTitle',
    'seo.metaDescription': 'metaDescription',
    'chatIntegration.guildId': 'guildId',
    'chatIntegration.roleIds': 'roleIds',
  };
  if (top[path]) return top[path];
  if (path.startsWith('chatIntegration.roleIds[')) return 'roleIds';
  if (path === 'chatIntegration' || path.startsWith('chatIntegration.')) return 'chatIntegration';
  if (path.startsWith('seo')) return 'metaTitle';
  const plain = [
    'title',
    'description',
    'shortDescription',
    'path',
    'customerNote',
    'unlisted',
    'private',
    'onHold',
    'isInternal',
    'variants',
  ];
  if (plain.includes(path)) return path;
  const variant = /^variants\[(\d+)\](?:\.(.*))?$/.exec(path);
  if (!variant) return undefined;
  const at = `variants.${variant[1]}`;
  const rest = variant[2] ?? '';
  if (rest === '' || rest === 'id') return `${at}.id`;
  if (['title', 'description', 'productType', 'customerNote', 'redirectUrl'].includes(rest)) return `${at}.${rest}`;
  if (rest.startsWith('priceDetails')) return `${at}.price`;
  if (rest.startsWith('warranty.durationSeconds')) return `${at}.warrantyDays`;
  if (rest.startsWith('warranty')) return `${at}.warrantyText`;
  const settings = /^as(?:Serials|Service|Dynamic|File)(?:\.(\w+))?/.exec(rest);
  if (settings) return `${at}.${settingsFields[settings[1] ?? ''] ?? 'productType'}`;
  const license = /^license(?:\.(\w+))?/.exec(rest);
  if (license) return `${at}.${licenseFields[license[1] ?? ''] ?? 'licenseEnabled'}`;
  const gateway = /^gateways\[(\d+)\]/.exec(rest);
  if (gateway) return `${at}.gateways.${gateway[1]}.price`;
  if (rest === 'gateways') return `${at}.gateways`;
  const field = /^customFields\[(\d+)\](?:\.(\w+))?/.exec(rest);
  if (field) {
    const name =
      field[2] && ['id', 'name', 'type', 'placeholder', 'regex', 'required'].includes(field[2]) ? field[2] : 'name';
    return `${at}.customFields.${field[1]}.${name}`;
  }
  if (rest.startsWith('customFields')) return `${at}.customFields`;
  return undefined;
}
