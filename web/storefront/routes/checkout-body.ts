import type { ErrorObject, ValidateFunction } from 'ajv';
import { formatValidationErrors, validatorCompiler } from '../../../src/http/validation.js';
import type { Lang } from '../../../src/i18n/lang.js';
import { CheckoutBody } from '../../../src/modules/orders/index.js';
import type { CheckoutValues, CheckoutVariant } from '../pages/checkout.js';

/**
 * The checkout form's body, checked the way the JSON API checks it: with the body schema of the
 * public checkout route (POST /v2/public/shops/{shopId}/invoices, the orders module's
 * `CheckoutBody`), compiled by the server's own body validator (src/http/validation.ts:
 * formats, `errorMessage` sentences, no coercion), so the form restates none of its limits.
 */
export type { CheckoutBody };

/** Compiled once, when first needed. */
let compiled: ValidateFunction | undefined;

function checkoutBodyValidator(): ValidateFunction {
  compiled ??= validatorCompiler({
    schema: CheckoutBody,
    method: 'POST',
    url: '/v2/public/shops/{shopId}/invoices',
    httpPart: 'body',
  }) as ValidateFunction;
  return compiled;
}

/**
 * A schema problem in words for a buyer rather than for a program (`must be at most 64
 * characters`, not `must NOT have more than 64 characters`), in the buyer's language; the limits
 * are the schema's. A problem the form has no words for keeps the API's.
 */
function inPlainWords(lang: Lang, error: ErrorObject, apiWords: string): string {
  const limit = typeof error.params.limit === 'number' ? error.params.limit : 0;
  switch (error.keyword) {
    case 'required':
      return lang.t('form.required');
    case 'format':
      return error.params.format === 'email' ? lang.t('form.email') : apiWords;
    case 'type':
      return error.params.type === 'integer' ? lang.t('form.wholeNumber') : apiWords;
    case 'minimum':
      return lang.t('form.atLeast', { limit });
    case 'maximum':
      return lang.t('form.atMost', { limit });
    case 'minLength':
      return lang.t('form.minLength', { limit });
    case 'maxLength':
      return lang.t('form.maxLength', { limit });
    case 'pattern':
      return error.params.pattern === '^[^\\x00]*$' ? apiWords : lang.t('form.pattern');
    default:
      return apiWords;
  }
}

/** The schema's problems as `"<path>: <problem>"`, the first one of each path. */
function schemaProblems(lang: Lang, errors: readonly ErrorObject[]): string[] {
  const problems = new Map<string, string>();
  for (const error of errors) {
    const [formatted] = formatValidationErrors([error], 'body');
    if (!formatted) continue;
    const at = formatted.indexOf(': ');
    const path = formatted.slice(0, at);
    if (!problems.has(path)) problems.set(path, `${path}: ${inPlainWords(lang, error, formatted.slice(at + 2))}`);
  }
  return [...problems.values()];
}

/**
 * The checkout service's body from the form, or the problems the form shows first (in the
 * service's `"<path>: <problem>"` form): what the JSON API's schema refuses, and the form's own
 * rules, the gateways this page offers and the terms, which only the storefront asks for. A
 * quantity is as typed on the one-product form (text the schema may refuse), a number from a cart.
 */
export function orderOf(
  values: CheckoutValues,
  lines: { productId: number; variantId: number; quantity: number | string }[],
  customFields: CheckoutVariant['customFields'],
  gateways: string[],
  terms: boolean,
  lang: Lang,
): { body: CheckoutBody; problems: string[] } {
  const email = values.email.trim();
  const coupon = values.coupon.trim();
  const ref = values.ref.trim();
  const chatUserId = values.chatUserId.trim();
  const answers: Record<string, string | boolean> = {};
  for (const f of customFields) {
    const value = values.fields[f.id] ?? '';
    if (f.type === 'checkbox') {
      if (value !== '') answers[f.id] = true;
    } else if (value !== '') answers[f.id] = value;
  }
  // As a JSON client would send it: an unanswered e-mail is left out (the schema says it is
  // required), a quantity that is not plain digits stays text (the schema says it is no number).
  const body = {
    ...(email === '' ? {} : { customerEmail: email }),
    gateway: values.gateway,
    parts: lines.map((l) => {
      const quantity = typeof l.quantity === 'number' ? String(l.quantity) : l.quantity.trim();
      return {
        productId: l.productId,
        productVariantId: l.variantId,
        quantity: /^\d+$/.test(quantity) ? Number(quantity) : quantity,
      };
    }),
    coupon: coupon || null,
    customFields: answers,
    affiliateCode: ref || null,
    chatUserId: chatUserId || null,
    key: null,
  };

  const problems: string[] = [];
  const offered = gateways.includes(values.gateway);
  if (!offered) problems.push(`gateway: ${lang.t('checkout.chooseGateway')}`);
  if (terms && !values.terms) problems.push(`terms: ${lang.t('checkout.acceptTerms')}`);
  const validate = checkoutBodyValidator();
  // The validator fills defaults in and drops unknown fields: it is given a copy.
  if (!validate(structuredClone(body)))
    problems.push(...schemaProblems(lang, validate.errors ?? []).filter((p) => offered || !p.startsWith('gateway: ')));
  return { body: body as CheckoutBody, problems };
}
