import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, longestStopMs } from './config.js';
import { MigrationStateError } from './db/migrate.js';
import { forgetServerAddress, listeningUrl, recordServerAddress } from './http/server-address.js';
import { ensureFirstOwner, PASSWORD_SETUP_HOURS, passwordSetupLink } from './modules/accounts/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildApp({ config });
  const { delayMs, timeoutMs } = config.shutdown;
  // Past this the process exits whatever is left: after the delay, the requests' bound and the workers' own stop grace.
  closeWithGrace({ delay: longestStopMs(config.shutdown) }, async ({ signal, err }) => {
    // First /ready answers 503 while everything else is still served, so that a load balancer
    // polling it stops sending here before the listener closes (requests sent to a closed port are
    // refused; those on a connection it closes are reset).
    app.lifecycle.draining = true;
    if (err) app.log.error({ err }, 'shutting down after an error');
    else {
      app.log.info({ signal, delayMs, timeoutMs }, 'shutting down: /ready answers 503; requests are still served');
      await sleep(delayMs);
    }
    // Then no new connection is taken and requests in flight finish, for up to SHUTDOWN_TIMEOUT_MS;
    // the workers stop after them, handing back the mail and webhooks they claimed but did not send.
    const cut = setTimeout(() => {
      app.log.warn({ timeoutMs }, 'requests still running at SHUTDOWN_TIMEOUT_MS: their connections are closed');
      app.server.closeAllConnections();
    }, timeoutMs);
    try {
      await app.close();
    } finally {
      clearTimeout(cut);
      forgetServerAddress(config.dataDir);
    }
    app.log.info('stopped');
  });
  await app.listen({ port: config.port, host: config.host });
  // The CLI's links (seed --demo) point here even when it runs without this process's PORT.
  const url = listeningUrl(config, app.server.address());
  recordServerAddress(config.dataDir, url);
  // The first owner is created only once listening succeeded: a start that dies on a busy port
  // must not leave behind a key nobody saw (the next start would find an owner and print none).
  const first = await ensureFirstOwner(app.ctx);
  if (first) {
    // Printed once, on stdout, each on its own line: neither is shown again. The link's token is in
    // its fragment, which a browser never sends: it reaches no server's request log.
    process.stdout.write(`First API key (${first.email}), shown once: ${first.key}\n`);
    process.stdout.write(
      `Set the owner's password (one-time link, valid ${PASSWORD_SETUP_HOURS} h): ${passwordSetupLink(url, first.setupToken)}\n`,
    );
  }
  app.log.info({ firstOwnerCreated: first !== undefined }, 'startup complete');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof MigrationStateError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
