import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/http/errors.js';
import type { Lang, MessageKey } from '../../src/i18n/lang.js';
import { InvoiceId } from '../../src/modules/orders/index.js';
import { EMAIL } from '../../src/schemas/common.js';

/**
 * Reading urlencoded forms and query strings, and placing a service's errors next to the fields
 * they concern. Services answer bad input with an AppError whose `errors` read
 * `"<field path>: <problem>"` (the JSON API's `errors`); a page maps each path to one of its form
 * fields, and shows the ones that match none above the form.
 */

/** The shape of an invoice id, as the JSON API's `InvoiceId` checks it. */
export const INVOICE_ID = new RegExp(InvoiceId.pattern!);

/** An e-mail address as the JSON API's schemas accept it (at most 254 characters). */
export const isEmail = (email: string) => email.length <= 254 && EMAIL.test(email);

/** What a parsed form or query holds: text values, or repeated ones. */
export type FormInput = Record<string, string | string[] | undefined> | undefined | null;

/**
 * The first value of `name` as sent ('' when absent). Never shortened: a value too long is
 * refused with an error next to its field rather than quietly cut (forms are at most 64 KB).
 */
export function textOf(input: FormInput, name: string): string {
  const value = input?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A positive id from a form or query value; undefined when it is not plain digits. */
export function idOf(input: FormInput, name: string): number | undefined {
  const text = textOf(input, name);
  if (!/^[1-9][0-9]{0,14}$/.test(text)) return undefined;
  return Number(text);
}

export interface PlacedErrors {
  /** The problem found in each field, by the field's form name. */
  fields: Record<string, string>;
  /** Problems that concern no field of the form. */
  other: string[];
  /** The service's summary, shown above the form. */
  message?: string | undefined;
  /** The status to answer the form with (the refusal's: 400, 409, 422). */
  status?: number;
}

export const noErrors = (): PlacedErrors => ({ fields: {}, other: [] });

/** A coupon's refusals (the coupons service's and the checkout's), in words for a buyer. */
const COUPON_PROBLEMS: Record<string, MessageKey> = {
  'is not valid': 'form.coupon.invalid',
  'is not valid yet': 'form.coupon.notYet',
  'has expired': 'form.coupon.expired',
  'has been used up': 'form.coupon.usedUp',
  'has no uses left': 'form.coupon.usedUp',
  'is not valid for these products': 'form.coupon.products',
  'is not valid for this gateway': 'form.coupon.gateway',
};

/**
 * A problem in the buyer's language where the catalogue has its words: the checks every form
 * shares (`is required`, `must be at most 200 characters`…), as the services and the forms' own
 * checks write them. Others, particular to one service, stay as the service wrote them (English).
 */
function inBuyerWords(lang: Lang, problem: string): string {
  const coupon = COUPON_PROBLEMS[problem];
  if (coupon) return lang.t(coupon);
  if (lang.locale === 'en') return problem;
  if (problem === 'is required') return lang.t('form.required');
  if (problem === 'must be an e-mail address') return lang.t('form.email');
  if (problem === 'must be a whole number') return lang.t('form.wholeNumber');
  const limit = /^must be at (most|least) ([\d,]+)( characters?)?$/.exec(problem);
  if (limit) {
    const n = Number(limit[2]!.replaceAll(',', ''));
    const most = limit[1] === 'most';
    if (limit[3]) return lang.t(most ? 'form.maxLength' : 'form.minLength', { limit: n });
    return lang.t(most ? 'form.atMost' : 'form.atLeast', { limit: n });
  }
  return problem;
}

/** A problem as a sentence: capitalised, ending with a full stop. */
export function sentence(problem: string): string {
  const text = problem.trim();
  const first = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/**
 * Places `"<path>: <problem>"` errors: `fieldOf(path)` names the form field a path belongs to (or
 * undefined). The first problem of a field is shown next to it; the rest go above the form.
 */
export function placeErrors(
  lang: Lang,
  errors: readonly string[],
  fieldOf: (path: string) => string | undefined,
  message?: string,
): PlacedErrors {
  const placed: PlacedErrors = { fields: {}, other: [], message };
  for (const error of errors) {
    const colon = error.indexOf(': ');
    const path = colon === -1 ? '' : error.slice(0, colon);
    const field = path ? fieldOf(path) : undefined;
    if (field !== undefined && placed.fields[field] === undefined)
      placed.fields[field] = sentence(inBuyerWords(lang, error.slice(colon + 2)));
    else if (error !== message) placed.other.push(error);
  }
  return placed;
}

/** A refusal of the input (400, 409, 422) that a form page shows; anything else goes to the error page. */
export function formRefusal(err: unknown): AppError | undefined {
  if (err instanceof AppError && err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 404) return err;
  // A payment provider that could not start the payment: the order was not placed, the form says so.
  if (err instanceof AppError && err.code === 'payment_provider_error') return err;
  return undefined;
}

/** The attributes that tie an input to its hint and its error (Field renders `{id}-hint` and `{id}-error`). */
export function describedBy(id: string, options: { error?: string | undefined; hint?: boolean }) {
  const ids = [options.hint ? `${id}-hint` : '', options.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    'aria-invalid': options.error ? ('true' as const) : undefined,
    'aria-describedby': ids || undefined,
  };
}

/**
 * What a storefront form's CSRF token is bound to: its shop. A token is made from the buyer's
 * secret cookie (`shopd_csrf`, one per browser for every shop of the host) and signed with this
 * binding, so a token taken from one shop's page is refused by another shop's form.
 */
export const csrfBinding = (request: FastifyRequest) => `shop:${request.site?.shop.id ?? 0}`;

/**
 * A refusal a form shows (formRefusal's), placed next to its fields; a proof-of-work challenge asked
 * for (428) goes next to the puzzle, in words for a buyer rather than the API's.
 */
export function refusalErrors(
  lang: Lang,
  refused: AppError,
  fieldOf: (path: string) => string | undefined,
): PlacedErrors {
  if (refused.code !== 'challenge_required')
    return { ...placeErrors(lang, refused.errors, fieldOf, refused.message), status: refused.statusCode };
  const missing = refused.errors.some((e) => e.endsWith('is required'));
  return {
    fields: { altcha: lang.t(missing ? 'challenge.wait' : 'challenge.rejected') },
    other: [],
    message: lang.t('challenge.message'),
    status: 428,
  };
}

/**
 * Whether a form shows the proof-of-work challenge: when its last try was refused for it, or when
 * the shop asks this client for one now (src/modules/challenge).
 */
export async function formChallenge(
  request: FastifyRequest,
  errors: PlacedErrors,
): Promise<{ error?: string | undefined } | null> {
  if (errors.fields.altcha) return { error: errors.fields.altcha };
  return (await request.server.challenges.required(request.site!.shop.id, request.ip)) ? {} : null;
}

/** The solution a form carries (the widget's `altcha` field), for `challenges.admit`. */
export const formSolution = (input: FormInput) => textOf(input, 'altcha') || undefined;

/** The CSRF token of a form on the page this reply answers (bound to its shop, csrfBinding). */
export const formToken = (reply: FastifyReply) => reply.generateCsrf({ userInfo: csrfBinding(reply.request) });
