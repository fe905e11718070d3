import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { MigrationStateError } from './db/migrate.js';
import { ensureFirstOwner, PASSWORD_SETUP_HOURS, passwordSetupLink } from './modules/accounts/index.js';

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
  const first = await ensureFirstOwner(app.db.kysely);
  if (first) {
    // Printed once, on stdout, each on its own line: neither is shown again. The link's token is in
    // its fragment, which a browser never sends: it reaches no server's request log.
    process.stdout.write(`First API key (${first.email}), shown once: ${first.key}\n`);
    process.stdout.write(
      `Set the owner's password (one-time link, valid ${PASSWORD_SETUP_HOURS} h): ${passwordSetupLink(config.publicUrl, first.setupToken)}\n`,
    );
  }
  app.log.info({ firstOwnerCreated: first !== undefined }, 'startup complete');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof MigrationStateError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
