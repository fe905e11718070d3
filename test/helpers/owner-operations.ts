import type { FastifyInstance } from 'fastify';

/**
 * Every owner operation on a shop, read from the app's own OpenAPI document, with a valid
 * body for each. Tests walk this list (isolation, scopes, authentication), so a new route
 * without a sample here fails the suite until one is added.
 */
export interface Operation {
  method: string;
  path: string;
  body?: unknown;
}

const samples: Record<string, unknown> = {
  'PUT /self/{shopId}/settings/name': { newName: 'Intruder' },
  'PUT /self/{shopId}/settings/subdomain': { newSubDomain: 'intruder-shop' },
  'PUT /self/{shopId}/settings/currency': { currency: 'EUR' },
  'PUT /self/{shopId}/settings/password': { password: 'intruder' },
  'PUT /self/{shopId}/settings/timezone': { utcTimezoneOffset: 60 },
  'PUT /self/{shopId}/settings/status': { onHold: true },
  'PUT /self/{shopId}/settings/popup': { message: 'pwned' },
  'PUT /self/{shopId}/settings/terms': { terms: 'pwned' },
  'PUT /self/{shopId}/settings/affiliate': { percentage: 50 },
  'PUT /self/{shopId}/settings/invoices': { lifetimeMinutes: 10 },
  'PUT /self/{shopId}/settings/payments/cryptocommerce': { enabled: true, apiKey: 'k'.repeat(12), webhookSecret: 's'.repeat(12) },
  'PUT /self/{shopId}/settings/payments/virtual-payments': { enabled: true, privateKey: 'p'.repeat(12), publicKey: 'pub', receiveCurrency: 'BTC' },
  'PUT /self/{shopId}/settings/payments/tipjar': { enabled: true, handle: 'intruder' },
  'PUT /self/{shopId}/settings/payments/balance': { enabled: true },
  'PUT /self/{shopId}/settings/payments/cardconnect': { enabled: true, secretKey: 'k'.repeat(12), webhookSecret: 's'.repeat(12) },
  'PUT /self/{shopId}/settings/payments/walletemail': { enabled: true, email: 'x@example.com' },
  'PUT /self/{shopId}/settings/payments/mobilecash': { enabled: true, cashtag: '$intruder' },
  'PUT /self/{shopId}/settings/payments/wallet-ff': { enabled: true, email: 'x@example.com' },
  'PUT /self/{shopId}/settings/payments/cardreader': { enabled: true, terminalId: 'T1', apiKey: 'k'.repeat(12) },
};

export async function shopOperations(app: FastifyInstance): Promise<Operation[]> {
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/self/{shopId}')) continue;
    for (const method of Object.keys(methods).map((m) => m.toUpperCase())) {
      const id = `${method} ${path}`;
      if (method !== 'GET' && !(id in samples)) throw new Error(`no sample body for ${id}: add one to test/helpers/owner-operations.ts`);
      operations.push({ method, path, ...(method === 'GET' ? {} : { body: samples[id] }) });
    }
  }
  return operations;
}

export function concretePath(op: Operation, shopId: number): string {
  return op.path.replace('{shopId}', String(shopId));
}
