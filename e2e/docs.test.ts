import { browse, e2eTest, startServer } from './harness.js';

/**
 * The API reference at /docs renders under its Content-Security-Policy (issue 36): a violation
 * is a console error, which fails the test.
 */
e2eTest(
  'the API reference renders under its security headers',
  async (t) => {
    const server = await startServer(t);
    const { page, shot } = await browse(t);
    await page.goto(`${server.url}/docs/`);
    await page.getByRole('heading', { name: /shopd/i }).first().waitFor();
    // An operation opens (scripts run and fetch the document from this origin).
    await page
      .getByRole('button', { name: /GET \/health/ })
      .first()
      .click();
    await page.getByText('Responses').first().waitFor();
    await shot('docs');
  },
  // Swagger UI over /openapi.json: the same document on both engines.
  { sqlitePassOnly: true },
);
