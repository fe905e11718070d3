import assert from 'node:assert/strict';
import { test } from 'node:test';
import { build } from '../helpers/build.js';

/** Issue 36: /docs (the API reference) had none of the security headers the app's other pages send. */
test('the API reference and its files carry the security headers', async (t) => {
  const app = await build(t);
  for (const url of ['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
    const res = await app.inject({ method: 'GET', url });
    assert.ok(res.statusCode === 200 || res.statusCode === 302, `${url}: ${res.statusCode}`);
    const csp = String(res.headers['content-security-policy'] ?? '');
    assert.match(csp, /default-src 'self'/, `${url} has a CSP`);
    assert.match(csp, /script-src 'self'(;|$)/, `${url}: scripts from this origin only`);
    assert.match(csp, /frame-ancestors 'none'/, url);
    assert.equal(res.headers['x-frame-options'], 'DENY', url);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
    assert.equal(res.headers['referrer-policy'], 'no-referrer', url);
  }
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  assert.doesNotMatch(page.body, /<script>(?!\s*<\/script>)|<script(?![^>]*\ssrc=)/, 'no inline script to allow');
  const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  assert.match(init.body, /validatorUrl: null/, 'no badge from validator.swagger.io');
});
