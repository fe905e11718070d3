import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ConfigError, type DatabaseConfig, loadConfig } from './config.js';
import { BackupError, backupDatabase, restoreDatabase } from './db/backup.js';
import { type Db, openDatabase } from './db/database.js';
import { assertMigratable, MigrationStateError, migrateToLatest, migrationNames, migrationPlan } from './db/migrate.js';
import { type Context, createContext } from './domain/context.js';
import { AppError } from './http/errors.js';
import { linkBase } from './http/server-address.js';
import { storefrontBase } from './http/storefront-url.js';
import {
  createApiKey,
  listApiKeys,
  PASSWORD_SETUP_HOURS,
  passwordSetupLink,
  revokeApiKey,
  type Scope,
  scopes,
  setPassword,
  setupTokenForEmail,
} from './modules/accounts/index.js';
import { wireSubscribers } from './subscribers.js';

const usage = `Usage: shopd <command> [options]   (or: npm run cli -- <command> [options])

Commands:
  serve                                 start the HTTP server (same as npm start)
  migrate [--dry-run]                   apply pending database migrations (forward only; the
                                        server also applies them at start); --dry-run lists
                                        what would be applied and changes nothing
  keys create --email <e> [--scope read|write]...
                                        create an API key (and the account if needed);
                                        the key alone is the last line of stdout
  keys list --email <e>                 list an account's keys (never the keys themselves)
  keys revoke <keyId>                   revoke a key at once
  users set-password --email <e>        set the password an account signs in to the web admin
                                        with: read from the first line of stdin, or asked for
                                        without echo on a terminal; ends the account's sessions
  users setup-link --email <e>          print a one-time link (valid 24 h) to set the account's
                                        password in the web admin; the link alone is the last
                                        line of stdout, and earlier links stop working
  secrets rotate --from-key-file <file> | --from-env <VARIABLE>
                                        re-encrypt every stored secret from the old key (a
                                        secret.key file, or a variable holding the old
                                        SECRET_KEY) to the configured one; stop shopd first
  seed --demo                           create a demo shop (account demo@localhost) with products,
                                        60 days of orders, customers and feedbacks; a new
                                        shop on every run; its API key is the last line of stdout
  backup <file>                         SQLite: a complete copy of the database, taken while the
                                        server runs; PostgreSQL: prints the pg_dump command to run
  restore <file>                        SQLite: replaces the database with a backup (stop the server
                                        first); PostgreSQL: prints the pg_restore command to run
  appeals list [--status open|accepted|rejected]
                                        every shop's feedback appeals, oldest first, one per line
  appeals accept <appealId>             accept an open appeal: the feedback is hidden from the
                                        storefront and no longer counted in ratings
  appeals reject <appealId>             reject an open appeal: the feedback stays
  rollups rebuild [--shop <shopId>]     recompute the dashboards' rollups of every shop (or one) from
                                        its orders and feedbacks, in short transactions (safe while
                                        the server runs)

Configuration comes from the environment (DATABASE_URL, DATA_DIR, ...): see the README.`;

class UsageError extends Error {}

function parseScopes(values: string[] | undefined): Scope[] | undefined {
  if (!values || values.length === 0) return undefined;
  for (const v of values) {
    if (!(scopes as readonly string[]).includes(v))
      throw new UsageError(`--scope must be one of: ${scopes.join(', ')}`);
  }
  return values as Scope[];
}

/**
 * A password from stdin: on a terminal, asked for twice without echo (readline writes what is
 * typed to an output that drops it); otherwise the first line (a pipe, a file).
 */
async function readPassword(): Promise<string> {
  const { stdin, stdout } = process;
  if (!stdin.isTTY) {
    const lines = createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      lines.close();
      return line;
    }
    return '';
  }
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const ask = (prompt: string) =>
    new Promise<string>((resolve) => {
      const terminal = createInterface({ input: stdin, output: silent, terminal: true });
      stdout.write(prompt);
      terminal.question('', (answer) => {
        terminal.close();
        stdout.write('\n');
        resolve(answer);
      });
    });
  const password = await ask('Password: ');
  if ((await ask('Again: ')) !== password) throw new UsageError('the two passwords differ; nothing was set');
  return password;
}

/**
 * Runs a command on the configured database, migrated first so a new database just works, with
 * the context services are given (src/domain/context.ts).
 */
async function withDatabase<T>(run: (db: Db, ctx: Context) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = openDatabase(config.database);
  try {
    await migrateToLatest(db.kysely);
    return await run(db, createContext(db.kysely, config));
  } finally {
    await db.destroy();
  }
}

/**
 * `migrate --dry-run`: what a start (or `migrate`) of this version would apply, read without
 * changing anything. A SQLite file is opened read-only, and one that does not exist yet is not created.
 */
async function migrationDryRun(database: DatabaseConfig): Promise<string[]> {
  if (database.dialect === 'sqlite' && database.file !== ':memory:' && !existsSync(database.file))
    return [
      `no database at ${database.file} yet; the first start creates it and applies all ${migrationNames.length} migrations:`,
      ...migrationNames.map((n) => `  ${n}`),
    ];
  const db = openDatabase(database, { readOnly: true });
  const plan = await migrationPlan(db.kysely).finally(() => db.destroy());
  assertMigratable(plan);
  if (plan.pending.length === 0)
    return [`database is up to date (${plan.applied.length} migrations applied); nothing would run`];
  return [
    `${plan.applied.length} migrations applied; ${plan.pending.length} would run, in this order:`,
    ...plan.pending.map((n) => `  ${n}`),
  ];
}

async function main(argv: string[]): Promise<void> {
  // Commands write too (appeals accept): what derives from their changes follows through the subscribers.
  wireSubscribers();
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      scope: { type: 'string', multiple: true },
      demo: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      status: { type: 'string' },
      shop: { type: 'string' },
      'from-key-file': { type: 'string' },
      'from-env': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    console.log(usage);
    return;
  }
  if (command === 'backup' || command === 'restore') {
    if (!sub || arg) throw new UsageError(`${command} needs one file: shopd ${command} <file>`);
    const lines = await (command === 'backup' ? backupDatabase : restoreDatabase)(loadConfig(), sub);
    for (const line of lines) console.log(line);
    return;
  }
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'serve':
      await import('./server.js');
      return;
    case 'migrate': {
      const { database } = loadConfig();
      if (values['dry-run']) {
        for (const line of await migrationDryRun(database)) console.log(line);
        return;
      }
      const db = openDatabase(database);
      const applied = await migrateToLatest(db.kysely).finally(() => db.destroy());
      console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return;
    }
    case 'keys create': {
      if (!values.email) throw new UsageError('keys create needs --email');
      const created = await withDatabase((_db, ctx) =>
        createApiKey(ctx, { email: values.email!, scopes: parseScopes(values.scope) }),
      );
      console.log(
        `API key ${created.view.id} for ${values.email} (scopes: ${created.view.scopes.join(', ')}); it is shown only now:`,
      );
      console.log(created.key);
      return;
    }
    case 'keys list': {
      if (!values.email) throw new UsageError('keys list needs --email');
      const keys = await withDatabase((_db, ctx) => listApiKeys(ctx, values.email!));
      for (const k of keys) {
        console.log(
          [
            k.id,
            `${k.prefix}…`,
            k.scopes.join(','),
            k.createdAt,
            k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
          ].join('\t'),
        );
      }
      return;
    }
    case 'keys revoke': {
      const id = Number(arg);
      if (!Number.isSafeInteger(id) || id < 1) throw new UsageError('keys revoke needs a numeric key id');
      const revoked = await withDatabase((_db, ctx) => revokeApiKey(ctx, id));
      console.log(`revoked key ${revoked.id} (${revoked.prefix}…)`);
      return;
    }
    case 'users set-password': {
      if (!values.email) throw new UsageError('users set-password needs --email');
      const password = await readPassword();
      const { email } = await withDatabase((_db, ctx) => setPassword(ctx, values.email!, password));
      console.log(`password set for ${email}`);
      return;
    }
    case 'users setup-link': {
      if (!values.email) throw new UsageError('users setup-link needs --email');
      const config = loadConfig();
      const { email, token } = await withDatabase((_db, ctx) => setupTokenForEmail(ctx, values.email!));
      console.log(`One-time link to set the password of ${email} (valid ${PASSWORD_SETUP_HOURS} h, usable once):`);
      console.log(passwordSetupLink(linkBase(config), token));
      return;
    }
    case 'secrets rotate': {
      const options = { fromKeyFile: values['from-key-file'], fromEnv: values['from-env'] };
      if ((options.fromKeyFile === undefined) === (options.fromEnv === undefined))
        throw new UsageError('secrets rotate needs one of --from-key-file <file> or --from-env <VARIABLE>');
      const { rotateSecretsCommand } = await import('./modules/secrets/index.js');
      console.log(await withDatabase((db) => rotateSecretsCommand(db.kysely, loadConfig(), options, process.env)));
      return;
    }
    case 'seed': {
      if (!values.demo) throw new UsageError('seed needs --demo');
      const { seedDemo } = await import('./modules/seed/index.js');
      const config = loadConfig();
      const demo = await seedDemo(config, {
        info: (line) => console.log(line),
        warn: (line) => console.error(line),
      });
      console.log(
        `Demo shop ${demo.shopId} "${demo.shopName}" (${demo.subdomain}): ${demo.products} products, ${demo.orders} orders ` +
          `(${demo.completedOrders} paid, ${demo.revenue} ${demo.currency}) over 60 days, ${demo.customers} customers, ${demo.feedbacks} feedbacks.`,
      );
      // Links on the address the server really answers at (its PORT, when this command has none).
      const base = linkBase(config);
      console.log(`Storefront: ${storefrontBase({ ...config, publicUrl: base }, { subdomain: demo.subdomain })}/`);
      // The demo account signs in to the admin like any other: with a password it sets through this link.
      const setup = await withDatabase((_db, ctx) => setupTokenForEmail(ctx, demo.email));
      console.log(
        `Admin: ${base}/admin/ as ${demo.email}; set its password (one-time link, valid ` +
          `${PASSWORD_SETUP_HOURS} h): ${passwordSetupLink(base, setup.token)}`,
      );
      console.log(`API key for ${demo.email}; it is shown only now:`);
      console.log(demo.key);
      return;
    }
    case 'appeals list':
    case 'appeals accept':
    case 'appeals reject': {
      const { appealsCommand } = await import('./modules/feedbacks/index.js');
      await appealsCommand(loadConfig(), sub!, arg, { status: values.status }, (line) => console.log(line));
      return;
    }
    case 'rollups rebuild': {
      const shop = values.shop === undefined ? undefined : Number(values.shop);
      if (shop !== undefined && !(Number.isSafeInteger(shop) && shop > 0))
        throw new UsageError('--shop must be a shop id (a positive integer)');
      const { rebuildRollupsCommand } = await import('./modules/rollups/index.js');
      const { deriveRepeatPurchases } = await import('./modules/orders/index.js');
      await withDatabase((db) =>
        rebuildRollupsCommand(
          db.kysely,
          shop,
          (line) => console.log(line),
          (id) => deriveRepeatPurchases(db.kysely, id, 'missing'),
        ),
      );
      return;
    }
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) console.error(`${err.message}\n\n${usage}`);
  else if (err instanceof AppError)
    console.error([err.message, ...err.errors.filter((e) => e !== err.message)].join('\n  '));
  else if (err instanceof ConfigError) console.error(err.message);
  else if (err instanceof BackupError || err instanceof MigrationStateError) console.error(err.message);
  else if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
    console.error(`${err.message}\n\n${usage}`);
  else console.error(err);
  process.exitCode = 1;
});
