import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { ensureFirstOwner } from './modules/accounts/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp({ config });
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  await app.listen({ port: config.port, host: config.host });
  // The first owner is created only once listening succeeded: a start that dies on a busy port
  // must not leave behind a key nobody saw (the next start would find an owner and print none).
  const firstKey = await ensureFirstOwner(app.db.kysely);
  if (firstKey) {
    // Printed once, on stdout, on its own line: it is never shown again.
    process.stdout.write(`First API key (owner@localhost), shown once: ${firstKey}\n`);
  }
  app.log.info({ firstOwnerCreated: firstKey !== undefined }, 'startup complete');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
