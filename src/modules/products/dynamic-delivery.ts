import { OutboundError, postGuarded } from '../../http/outbound.js';

/**
 * Dynamic products (contract 5.1): at delivery the order is POSTed to the owner's URL and the
 * text it answers is delivered. The call goes through the guarded client webhooks use
 * (`http/outbound.ts`): public addresses only unless ALLOW_PRIVATE_WEBHOOKS, the connection
 * pinned to the checked address, no redirects, one deadline. A timeout, a non-2xx answer, an
 * empty body or one over 64 KiB is a failure the caller records on the invoice: an answer
 * longer than that is not delivered cut short, and is not read past the limit.
 */

export interface DynamicOrder {
  invoiceId: string;
  shopId: number;
  productId: number;
  variantId: number;
  quantity: number;
  customerEmail: string;
  customFields: Record<string, unknown>;
  replacement: boolean;
}

export const MAX_ANSWER_BYTES = 64 * 1024;

export class DynamicDeliveryError extends Error {}

/** How dynamic deliveries are made: the timeout, and whether private addresses may be called. */
export interface DeliveryOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** The endpoint as errors name it: scheme, host and port, never a path or query that may carry a token. */
function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the delivery URL';
  }
}

export async function fetchDynamicDeliverable(
  url: string,
  order: DynamicOrder,
  options: DeliveryOptions,
): Promise<string> {
  const at = origin(url);
  let answer: Awaited<ReturnType<typeof postGuarded>>;
  try {
    answer = await postGuarded(
      {
        url,
        headers: { 'content-type': 'application/json', 'user-agent': 'shopd-dynamic-delivery' },
        body: JSON.stringify(order),
      },
      { ...options, maxResponseBytes: MAX_ANSWER_BYTES },
    );
  } catch (err) {
    if (err instanceof OutboundError) throw new DynamicDeliveryError(`${at}: ${err.message}`);
    throw err;
  }
  if (answer.status < 200 || answer.status >= 300)
    throw new DynamicDeliveryError(`${at}: answered HTTP ${answer.status}`);
  if (answer.truncated) throw new DynamicDeliveryError(`${at}: answered more than ${MAX_ANSWER_BYTES} bytes`);
  const text = answer.body.toString('utf8').trim();
  if (text === '') throw new DynamicDeliveryError(`${at}: answered an empty body`);
  return text;
}
