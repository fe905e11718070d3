import { assertPublicUrl, UnsafeUrlError } from '../webhooks/address-guard.js';

/**
 * Dynamic products (contract 5.1): at delivery the order is POSTed to the owner's URL and the
 * text it answers is delivered. No redirects are followed; a timeout, a non-2xx answer or an
 * empty body is a failure the caller records on the invoice. The URL must resolve to public
 * addresses (checked before each call; unlike webhooks, fetch offers no connect-time hook).
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

const MAX_ANSWER_BYTES = 64 * 1024;

export class DynamicDeliveryError extends Error {}

/** How dynamic deliveries are made: the timeout, and whether private addresses may be called. */
export interface DeliveryOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export async function fetchDynamicDeliverable(url: string, order: DynamicOrder, options: DeliveryOptions): Promise<string> {
    try {
    // The same SSRF rule as webhooks: only public addresses unless ALLOW_PRIVATE_WEBHOOKS.
    await assertPublicUrl(url, options.allowPrivate);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw new DynamicDeliveryError(`${url}: refused: ${err.message}`);
    throw err;
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'shopd-dynamic-delivery' },
      body: JSON.stringify(order),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (err as Error).message;
    throw new DynamicDeliveryError(`${url}: ${reason}`);
  }
  const text = (await response.text()).slice(0, MAX_ANSWER_BYTES).trim();
  if (response.status < 200 || response.status >= 300) throw new DynamicDeliveryError(`${url}: answered HTTP ${response.status}`);
  if (text === '') throw new DynamicDeliveryError(`${url}: answered an empty body`);
  return text;
}
