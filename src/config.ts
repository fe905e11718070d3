import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import ipaddr from 'ipaddr.js';

/**
 * The environment, validated once at boot. Nothing else in the code base reads `process.env`:
 * modules receive the frozen `Config` through `buildApp(options)`.
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  REDIS_KEY_PREFIX: Type.String({ pattern: '^[A-Za-z0-9_.:-]{0,64}$', default: 'shopd:' }),
  SECRET_KEY: Type.Optional(Type.String({ minLength: 16 })),
  ALLOW_UNREADABLE_SECRETS: Type.Boolean({ default: false }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  UPLOAD_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 5 * 1024 * 1024 }),
  UPLOAD_MAX_PIXELS: Type.Integer({ minimum: 1, maximum: 100_000_000, default: 24_000_000 }),
  REQUEST_BODY_TIMEOUT_MS: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 30_000 }),
  REQUEST_BODY_MIN_RATE: Type.Integer({ minimum: 1, default: 8192 }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
  RATE_LIMIT_OWNER_MAX: Type.Integer({ minimum: 0, default: 1200 }),
  RATE_LIMIT_PUBLIC_MAX: Type.Integer({ minimum: 0, default: 600 }),
  RATE_LIMIT_AUTH_FAILURES_MAX: Type.Integer({ minimum: 0, default: 20 }),
  TRUST_PROXY: Type.String({ minLength: 1, default: 'false' }), // checked by parseTrustProxy below
  COUNTRY_HEADER: Type.String({ pattern: '^[A-Za-z0-9-]+$', default: 'cf-ipcountry' }),
  INVOICE_EXPIRY_INTERVAL_MS: Type.Integer({ minimum: 50, default: 30_000 }),
  ALLOW_PRIVATE_WEBHOOKS: Type.Boolean({ default: false }),
  WEBHOOK_WORKER_INTERVAL_MS: Type.Integer({ minimum: 50, default: 1000 }),
  WEBHOOK_WORKER_ENABLED: Type.Boolean({ default: true }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 15_000 }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
  DYNAMIC_DELIVERY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  SMTP_URL: Type.Optional(Type.String({ minLength: 1 })), // checked as an smtp(s) URL below
  MAIL_FROM: Type.String({ minLength: 3, default: 'shopd <no-reply@localhost>' }),
  MAIL_WORKER_INTERVAL_MS: Type.Integer({ minimum: 50, default: 2000 }),
  MAIL_WORKER_ENABLED: Type.Boolean({ default: true }),
  MAIL_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 50, default: 20 }),
  PAGE_CACHE_MAX_BYTES: Type.Integer({ minimum: 0, default: 64 * 1024 * 1024 }),
  VPN_RANGES_FILE: Type.Optional(Type.String({ minLength: 1 })),
  ROOT_PAGE_SHOPS: Type.Boolean({ default: true }),
  PUBLIC_URL: Type.Optional(Type.String({ minLength: 1 })), // checked as an http(s) URL below
  STOREFRONT_DOMAIN: Type.Optional(
    Type.String({
      pattern:
        '^(?=.{1,200}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(:\\d{1,5})?$',
    }),
  ),
  CORS_ORIGINS: Type.String({ default: '' }), // checked below: `*` or comma-separated origins
  ADMIN_HOSTS: Type.String({ default: '' }), // checked below: comma-separated host names
  DNS_SERVERS: Type.String({ default: '' }), // checked below: comma-separated ip[:port]
  PAYMENTS_STRIPE_API_URL: Type.String({ default: 'https://api.stripe.com' }), // checked as an http(s) URL below
  PAYMENTS_CRYPTO_API_URL: Type.String({ default: 'https://api.commerce.coinbase.com' }), // checked as an http(s) URL below
  PAYMENTS_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 120_000, default: 20_000 }),
  PROBE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 2000 }),
  SHUTDOWN_DELAY_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 3000 }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 20_000 }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, pattern: '^[\\x21-\\x7e]+$' })),
  FILE_MAX_BYTES: Type.Integer({ minimum: 1024, default: 2 * 1024 * 1024 * 1024 }),
  FILES_S3_BUCKET: Type.Optional(Type.String({ minLength: 3, maxLength: 63 })),
  FILES_S3_ENDPOINT: Type.Optional(Type.String({ minLength: 1 })), // checked as an http(s) URL below
  FILES_S3_REGION: Type.String({ minLength: 1, default: 'us-east-1' }),
  FILES_S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  FILES_S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  FILES_S3_FORCE_PATH_STYLE: Type.Boolean({ default: false }),
  LICENSE_TOKEN_HOURS: Type.Integer({ minimum: 1, maximum: 24 * 366, default: 72 }),
  SUBDOMAIN_HOLD_DAYS: Type.Integer({ minimum: 0, maximum: 3650, default: 30 }),
  CHALLENGE_COST: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1000 }),
  CHALLENGE_COUNTER_MAX: Type.Integer({ minimum: 2, maximum: 10_000_000, default: 2000 }),
});

type Env = Static<typeof EnvSchema>;

export type DatabaseConfig =
  | { dialect: 'sqlite'; file: string }
  | { dialect: 'postgres'; url: string; schema?: string };

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  redisUrl: string | undefined;
  /** Prefix of the keys shopd writes to Redis for real-time visit counters. */
  redisKeyPrefix: string;
  secretKey: string | undefined;
  /** Start even when the key cannot open stored secrets (a key lost for good); default: refuse. */
  allowUnreadableSecrets: boolean;
  logLevel: string;
  bodyLimitBytes: number;
  uploadLimitBytes: number;
  /** Largest image (width × height, all frames of an animation) an upload may decode; larger: 413 from its header. */
  uploadMaxPixels: number;
  /**
   * A request body must arrive within `timeoutMs`, extended by one second for every `minRate`
   * bytes received (src/http/body-timeout.ts); `timeoutMs` 0: no limit.
   */
  requestBody: { timeoutMs: number; minRate: number };
  /** `authFailuresMax`: unknown API keys one client IP may present per window before 429; 0 = off. */
  rateLimit: { windowMs: number; ownerMax: number; publicMax: number; authFailuresMax: number };
  /**
   * Which peers' X-Forwarded-For to believe (Fastify's `trustProxy`): false, true (every hop), a
   * number of hops, or the proxies' addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string[];
  /** Request header a proxy sets to the client's ISO 3166 country (blacklist by country). */
  countryHeader: string;
  invoices: { expiryIntervalMs: number; dynamicTimeoutMs: number };
  /** `concurrency`: deliveries in flight at once per endpoint, across all instances. */
  webhooks: {
    allowPrivate: boolean;
    intervalMs: number;
    workerEnabled: boolean;
    timeoutMs: number;
    concurrency: number;
  };
  /**
   * Outgoing mail: SMTP when `smtpUrl` is set, else an `.eml` file under `DATA_DIR/mail`.
   * `concurrency`: mails one instance sends at once, over as many pooled SMTP connections.
   */
  mail: { smtpUrl: string | undefined; from: string; intervalMs: number; workerEnabled: boolean; concurrency: number };
  /** Memory for serialised public pages; 0 turns the page cache off. */
  pageCacheMaxBytes: number;
  /** Whether the operator's page at `/` lists the instance's shops (`ROOT_PAGE_SHOPS`). */
  rootPageShops: boolean;
  /**
   * The base every link shopd writes uses (mail, webhooks, API answers), without a trailing slash:
   * `PUBLIC_URL`, else `http://{HOST}:{PORT}` (`127.0.0.1` for a wildcard HOST).
   */
  publicUrl: string;
  /**
   * `STOREFRONT_DOMAIN`: a request whose Host is `{subdomain}.{storefrontDomain}` is served that
   * shop's storefront at `/`; undefined turns subdomain hosts off (`/s/{subdomain}/` always works).
   */
  storefrontDomain: string | undefined;
  /** Origins allowed to call the public API from a browser (`CORS_ORIGINS`); `['*']` allows any, `[]` none. */
  corsOrigins: string[];
  /**
   * `ADMIN_HOSTS`: the operator's host names (lower case, no port) besides PUBLIC_URL's host, on
   * which the web admin and owner sign-in answer (src/http/admin-hosts.ts).
   */
  adminHosts: string[];
  /**
   * `DNS_SERVERS`: the resolvers custom-domain verification asks (`ip` or `ip:port`); empty: the
   * system's. Tests point it at a DNS server of their own.
   */
  dnsServers: string[];
  /**
   * Where the payment providers' APIs are (`PAYMENTS_STRIPE_API_URL`, `PAYMENTS_CRYPTO_API_URL`):
   * their own by default; a proxy, or a local double in tests.
   */
  payments: { stripeApiUrl: string; cryptoApiUrl: string; timeoutMs: number };
  /**
   * Owners' files (file products): `maxBytes` (`FILE_MAX_BYTES`, 2 GiB) per file; stored under
   * `DATA_DIR/files`, or in the S3-compatible bucket `s3` when `FILES_S3_BUCKET` is set (its
   * endpoint, region and keys; without keys the SDK's own chain: environment, profile, role).
   */
  files: {
    maxBytes: number;
    s3:
      | {
          bucket: string;
          endpoint: string | undefined;
          region: string;
          accessKeyId: string | undefined;
          secretAccessKey: string | undefined;
          forcePathStyle: boolean;
        }
      | undefined;
  };
  /** `tokenHours` (`LICENSE_TOKEN_HOURS`, 72): how long a signed licence token stays valid offline. */
  licenses: { tokenHours: number };
  /** `SUBDOMAIN_HOLD_DAYS` (30; 0: none): how long a subdomain a shop gave up is kept for its account. */
  subdomainHoldDays: number;
  /**
   * The proof-of-work challenge's work (src/modules/challenge): `cost` (`CHALLENGE_COST`, 1000)
   * PBKDF2-SHA-256 iterations per try, and the browser tries up to a counter drawn between half
   * of `counterMax` (`CHALLENGE_COUNTER_MAX`, 2000) and all of it: about 1.5 million iterations.
   */
  challenge: { cost: number; counterMax: number };
  /** How long the database and Redis have to answer `/health` and `/ready` before they are a 503. */
  probeTimeoutMs: number;
  /**
   * Stopping (SIGTERM, SIGINT): `delayMs` (`SHUTDOWN_DELAY_MS`) with `/ready` answering 503 and
   * everything else served, so a load balancer stops sending; then the listener closes and requests
   * in flight have `timeoutMs` (`SHUTDOWN_TIMEOUT_MS`) to finish before their connections are closed.
   */
  shutdown: { delayMs: number; timeoutMs: number };
  /** The bearer token `GET /metrics` asks for (`METRICS_TOKEN`); undefined turns metrics off. */
  metricsToken: string | undefined;
  /** The operator's VPN/proxy CIDR list that `blockVpn` gateway rules check buyers against (read at start: blacklist/vpn-ranges.ts). */
  vpnRangesFile: string | undefined;
}

export class ConfigError extends Error {}

/** Parses a `DATABASE_URL`: postgres URLs select PostgreSQL, `file:`/paths select SQLite. */
export function parseDatabaseUrl(url: string | undefined, dataDir: string): DatabaseConfig {
  if (!url) return { dialect: 'sqlite', file: resolve(dataDir, 'shopd.sqlite') };
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  if (url.startsWith('sqlite:') || url.startsWith('file:')) {
    return { dialect: 'sqlite', file: resolve(url.replace(/^(sqlite|file):(\/\/)?/, '')) };
  }
  throw new ConfigError(`DATABASE_URL: expected a postgres:// URL or a sqlite:/file: path, got "${url}"`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw));
  const problems = [...Value.Errors(EnvSchema, withDefaults)].map((e) => `${e.path.slice(1)}: ${e.message}`);
  const smtpUrl = (withDefaults as Partial<Env>).SMTP_URL;
  if (typeof smtpUrl === 'string' && !isSmtpUrl(smtpUrl))
    problems.push('SMTP_URL: expected smtp://[user:pass@]host[:port] or smtps://…');
  const trustProxy = parseTrustProxy(String((withDefaults as Partial<Env>).TRUST_PROXY ?? 'false'));
  if (trustProxy === undefined)
    problems.push(
      'TRUST_PROXY: expected false, true, a number of proxy hops, or comma-separated proxy addresses or CIDR ranges',
    );
  const publicUrl = (withDefaults as Partial<Env>).PUBLIC_URL;
  if (typeof publicUrl === 'string' && parseBaseUrl(publicUrl) === undefined)
    problems.push('PUBLIC_URL: expected an http(s) URL without a query or fragment, e.g. https://shop.example.com');
  const corsOrigins = parseCorsOrigins(String((withDefaults as Partial<Env>).CORS_ORIGINS ?? ''));
  if (corsOrigins === undefined)
    problems.push('CORS_ORIGINS: expected * or comma-separated origins such as https://shop.example.com');
  const adminHosts = parseHostList(String((withDefaults as Partial<Env>).ADMIN_HOSTS ?? ''));
  if (adminHosts === undefined)
    problems.push('ADMIN_HOSTS: expected comma-separated host names such as admin.example.com');
  const dnsServers = parseDnsServers(String((withDefaults as Partial<Env>).DNS_SERVERS ?? ''));
  if (dnsServers === undefined)
    problems.push('DNS_SERVERS: expected comma-separated addresses such as 1.1.1.1 or 127.0.0.1:5353');
  const s3Endpoint = (withDefaults as Partial<Env>).FILES_S3_ENDPOINT;
  if (typeof s3Endpoint === 'string' && parseBaseUrl(s3Endpoint) === undefined)
    problems.push('FILES_S3_ENDPOINT: expected an http(s) URL, e.g. https://s3.eu-central-1.amazonaws.com');
  for (const name of ['PAYMENTS_STRIPE_API_URL', 'PAYMENTS_CRYPTO_API_URL'] as const) {
    const value = (withDefaults as Partial<Env>)[name];
    if (typeof value === 'string' && parseBaseUrl(value) === undefined)
      problems.push(`${name}: expected an http(s) URL, e.g. https://api.stripe.com`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  const parsed = withDefaults as Env;
  const dataDir = resolve(parsed.DATA_DIR);
  return Object.freeze({
    port: parsed.PORT,
    host: parsed.HOST,
    dataDir,
    database: parseDatabaseUrl(parsed.DATABASE_URL, dataDir),
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    secretKey: parsed.SECRET_KEY,
    allowUnreadableSecrets: parsed.ALLOW_UNREADABLE_SECRETS,
    logLevel: parsed.LOG_LEVEL,
    bodyLimitBytes: parsed.BODY_LIMIT_BYTES,
    uploadLimitBytes: parsed.UPLOAD_LIMIT_BYTES,
    uploadMaxPixels: parsed.UPLOAD_MAX_PIXELS,
    requestBody: Object.freeze({ timeoutMs: parsed.REQUEST_BODY_TIMEOUT_MS, minRate: parsed.REQUEST_BODY_MIN_RATE }),
    rateLimit: Object.freeze({
      windowMs: parsed.RATE_LIMIT_WINDOW_MS,
      ownerMax: parsed.RATE_LIMIT_OWNER_MAX,
      publicMax: parsed.RATE_LIMIT_PUBLIC_MAX,
      authFailuresMax: parsed.RATE_LIMIT_AUTH_FAILURES_MAX,
    }),
    trustProxy: trustProxy!,
    countryHeader: parsed.COUNTRY_HEADER.toLowerCase(),
    webhooks: Object.freeze({
      allowPrivate: parsed.ALLOW_PRIVATE_WEBHOOKS,
      intervalMs: parsed.WEBHOOK_WORKER_INTERVAL_MS,
      workerEnabled: parsed.WEBHOOK_WORKER_ENABLED,
      timeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
      concurrency: parsed.WEBHOOK_CONCURRENCY,
    }),
    invoices: Object.freeze({
      expiryIntervalMs: parsed.INVOICE_EXPIRY_INTERVAL_MS,
      dynamicTimeoutMs: parsed.DYNAMIC_DELIVERY_TIMEOUT_MS,
    }),
    mail: Object.freeze({
      smtpUrl: parsed.SMTP_URL,
      from: parsed.MAIL_FROM,
      intervalMs: parsed.MAIL_WORKER_INTERVAL_MS,
      workerEnabled: parsed.MAIL_WORKER_ENABLED,
      concurrency: parsed.MAIL_CONCURRENCY,
    }),
    pageCacheMaxBytes: parsed.PAGE_CACHE_MAX_BYTES,
    rootPageShops: parsed.ROOT_PAGE_SHOPS,
    probeTimeoutMs: parsed.PROBE_TIMEOUT_MS,
    shutdown: Object.freeze({ delayMs: parsed.SHUTDOWN_DELAY_MS, timeoutMs: parsed.SHUTDOWN_TIMEOUT_MS }),
    metricsToken: parsed.METRICS_TOKEN,
    vpnRangesFile: parsed.VPN_RANGES_FILE === undefined ? undefined : resolve(parsed.VPN_RANGES_FILE),
    publicUrl:
      parsed.PUBLIC_URL === undefined
        ? `http://${defaultLinkHost(parsed.HOST)}:${parsed.PORT}`
        : parseBaseUrl(parsed.PUBLIC_URL)!,
    storefrontDomain: parsed.STOREFRONT_DOMAIN,
    corsOrigins: Object.freeze(corsOrigins!) as string[],
    adminHosts: Object.freeze(adminHosts!) as string[],
    dnsServers: Object.freeze(dnsServers!) as string[],
    payments: Object.freeze({
      stripeApiUrl: parseBaseUrl(parsed.PAYMENTS_STRIPE_API_URL)!,
      cryptoApiUrl: parseBaseUrl(parsed.PAYMENTS_CRYPTO_API_URL)!,
      timeoutMs: parsed.PAYMENTS_TIMEOUT_MS,
    }),
    files: Object.freeze({
      maxBytes: parsed.FILE_MAX_BYTES,
      s3:
        parsed.FILES_S3_BUCKET === undefined
          ? undefined
          : Object.freeze({
              bucket: parsed.FILES_S3_BUCKET,
              endpoint: parsed.FILES_S3_ENDPOINT === undefined ? undefined : parseBaseUrl(parsed.FILES_S3_ENDPOINT)!,
              region: parsed.FILES_S3_REGION,
              accessKeyId: parsed.FILES_S3_ACCESS_KEY_ID,
              secretAccessKey: parsed.FILES_S3_SECRET_ACCESS_KEY,
              forcePathStyle: parsed.FILES_S3_FORCE_PATH_STYLE,
            }),
    }),
    licenses: Object.freeze({ tokenHours: parsed.LICENSE_TOKEN_HOURS }),
    subdomainHoldDays: parsed.SUBDOMAIN_HOLD_DAYS,
    challenge: Object.freeze({ cost: parsed.CHALLENGE_COST, counterMax: parsed.CHALLENGE_COUNTER_MAX }),
  });
}

/**
 * TRUST_PROXY: `false` (client IPs are the peers'), `true` (every hop of X-Forwarded-For is
 * believed: only behind a proxy that overwrites the header, since its left-most entry is what the
 * client wrote), a number of proxy hops, or the proxies' addresses and CIDR ranges (only what
 * they add is believed). Undefined when it is none of these.
 */
export function parseTrustProxy(value: string): boolean | number | string[] | undefined {
  const text = value.trim().toLowerCase();
  if (text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(',').map((e) => e.trim());
  const valid = entries.every((entry) => {
    const [address, bits, ...rest] = entry.split('/');
    if (rest.length > 0 || !address || !ipaddr.isValid(address)) return false;
    if (bits === undefined) return true;
    const max = ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
  });
  return valid ? entries : undefined;
}

/** `https://shop.example.com/` → `https://shop.example.com`; undefined when not a plain http(s) base URL. */
export function parseBaseUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username)
      return undefined;
    return url.href.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** A wildcard listen address is no address to link to. */
/** `ADMIN_HOSTS`: comma-separated host names, lower-cased; undefined when one is no host name. */
function parseHostList(value: string): string[] | undefined {
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase().replace(/\.$/, ''))
    .filter(Boolean);
  const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
  return names.every((name) => HOST.test(name)) ? names : undefined;
}

/** `DNS_SERVERS`: comma-separated `ip`, `ip:port` or `[ipv6]:port`, as node:dns `setServers` takes them. */
function parseDnsServers(value: string): string[] | undefined {
  const servers = value
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean);
  const ok = servers.every(
    (server) =>
      isIP(server) !== 0 ||
      /^(?:\d{1,3}\.){3}\d{1,3}:\d{1,5}$/.test(server) ||
      /^\[[0-9a-f:.]+\]:\d{1,5}$/i.test(server),
  );
  return ok ? servers : undefined;
}

export function defaultLinkHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** `*`, or comma-separated origins (scheme://host[:port]); undefined when one is not an origin. */
export function parseCorsOrigins(value: string): string[] | undefined {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 1 && entries[0] === '*') return ['*'];
  const origins: string[] = [];
  for (const entry of entries) {
    try {
      const url = new URL(entry);
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, ''))
        return undefined;
      origins.push(url.origin);
    } catch {
      return undefined;
    }
  }
  return origins;
}

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** What the workers' stop may take after the requests are done (mail and webhook sends in flight). */
const WORKERS_STOP_MS = 10_000;

/** The longest a stop takes (src/server.ts): the drain delay, the requests' bound, the workers' stop. */
export function longestStopMs(shutdown: Config['shutdown']): number {
  return shutdown.delayMs + shutdown.timeoutMs + WORKERS_STOP_MS;
}
