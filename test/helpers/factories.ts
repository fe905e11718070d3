import assert from 'node:assert/strict';
import type { Client } from './build.js';

/** Creates a shop through the API and returns it. */
export async function createShop(api: Client, name = 'Test Shop'): Promise<{ id: number; subdomain: string; [k: string]: unknown }> {
  const res = await api.post('/self/shops', { name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Asserts the contract's error envelope with this status and code. */
export function assertError(res: { status: number; body: any }, status: number, code: string): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.data, null);
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, 'errors must name at least one problem');
}

export function assertOk(res: { status: number; body: any }): any {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.message, 'OK');
  assert.deepEqual(res.body.errors, []);
  return res.body.data;
}
