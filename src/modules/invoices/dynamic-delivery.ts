/**
 * Dynamic products (contract 5.1): at delivery the order is POSTed to the owner's URL and the
 * text it answers is delivered. No redirects are followed; a timeout, a non-2xx answer or an
 * empty body is a failure the caller records on the invoice.
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

export async function fetchDynamicDeliverable(url: string, order: DynamicOrder, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'shopd-dynamic-delivery' },
      body: JSON.stringify(order),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    throw new DynamicDeliveryError(`${url}: ${reason}`);
  }
  const text = (await response.text()).slice(0, MAX_ANSWER_BYTES).trim();
  if (response.status < 200 || response.status >= 300) throw new DynamicDeliveryError(`${url}: answered HTTP ${response.status}`);
  if (text === '') throw new DynamicDeliveryError(`${url}: answered an empty body`);
  return text;
}
