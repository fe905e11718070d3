import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer, type LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { onEnd, processEnv } from './helpers/build.js';
import { cli } from './helpers/cli.js';
import { deployTest } from './helpers/deploy-tools.js';
import { dnsServer } from './helpers/dns-server.js';
import { startServer } from './helpers/server-process.js';
import { waitUntil } from './helpers/wait.js';

/**
 * deploy/Caddyfile: checked by Caddy's own `caddy validate`, then run in front of the compiled
 * server on loopback ports, as docs/deployment.md sets them up: TLS for the main host, a shop's
 * subdomain and a shop's custom domain (on demand, once shopd's /tls-ask says yes), none for
 * a host shopd does not serve, and the client's address reaching shopd through X-Forwarded-For.
 *
 * Caddy runs with the very file the deployment uses; CADDY_EXTRA_OPTIONS adds what a test needs:
 * certificates from its own local CA (`local_certs`: it never calls an ACME server), that CA kept
 * out of the system's trust store and its storage and config in a temp dir, ports of its own, no
 * admin endpoint. The client trusts that CA's root, and reaches the *.localhost and custom names at
 * 127.0.0.1 through its own `lookup`.
 */

const CADDYFILE = 'deploy/Caddyfile';

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(command, args, { env, timeout: 120_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-caddy-'));
  onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Caddy's environment: its data and config in `dir`, never the user's; plus the Caddyfile's settings. */
function caddyEnv(dir: string, settings: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    ...settings,
  };
}

const production = { SHOPD_DOMAIN: 'shop.example.com', ACME_EMAIL: 'ops@example.com' };

deployTest(
  'caddy validate accepts the Caddyfile as production sets it, and refuses a broken one',
  ['caddy'],
  async (t) => {
    const dir = tempDir(t);
    const validate = (file: string, settings: Record<string, string>) =>
      run('caddy', ['validate', '--adapter', 'caddyfile', '--config', file], caddyEnv(dir, settings));
    const valid = await validate(CADDYFILE, production);
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /Valid configuration/);
    assert.doesNotMatch(valid.stderr, /not formatted/, 'the file is as `caddy fmt` writes it');

    // What the file becomes: the main host with its own certificate, every other host on demand,
    // asked of shopd's /tls-ask at SHOPD_UPSTREAM.
    const adapted = await run(
      'caddy',
      ['adapt', '--adapter', 'caddyfile', '--config', CADDYFILE],
      caddyEnv(dir, { ...production, SHOPD_UPSTREAM: 'shopd:3000' }),
    );
    assert.equal(adapted.code, 0, adapted.stderr);
    const config = JSON.parse(adapted.stdout);
    assert.equal(config.apps.tls.automation.on_demand.ask, 'http://shopd:3000/tls-ask');
    assert.deepEqual(
      config.apps.tls.automation.policies.find((p: any) => p.on_demand)?.subjects,
      undefined,
      'on demand for every host but the main one',
    );
    const routes = config.apps.http.servers.srv0.routes;
    assert.deepEqual(routes[0].match, [{ host: ['shop.example.com'] }]);
    assert.equal(routes[1].match, undefined, 'the second site takes every other host');
    assert.match(JSON.stringify(routes), /"dial":"shopd:3000"/);
    assert.doesNotMatch(JSON.stringify(routes), /127\.0\.0\.1:3000/, 'SHOPD_UPSTREAM is used everywhere');

    const text = readFileSync(CADDYFILE, 'utf8');
    for (const [what, broken, settings] of [
      ['a misspelt directive', text.replace('reverse_proxy {', 'reverse_proxi {'), production],
      ['a missing brace', text.replace(/\n}\n$/, '\n'), production],
      ['no ACME_EMAIL', text, { SHOPD_DOMAIN: 'shop.example.com' }],
    ] as const) {
      assert.ok(what === 'no ACME_EMAIL' || broken !== text, `the file was changed to have ${what}`);
      const file = join(dir, 'Caddyfile');
      writeFileSync(file, broken);
      assert.notEqual((await validate(file, settings)).code, 0, `caddy validate refuses ${what}`);
    }
  },
);

/**
 * A loopback port nothing listens on now, for Caddy, which cannot report the port it took. Taken
 * below Linux's ephemeral range (32768–60999), where the OS hands out the ports of every other
 * test's `listen(0)`: between this check and Caddy's bind, no other test can take it.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Every name resolves to 127.0.0.1, as the DNS records of a deployment point them at its server. */
const loopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) (callback as any)(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** An HTTPS request to `host` through Caddy at 127.0.0.1:`port`, trusting only `ca`. */
function fetchVia(
  port: number,
  ca: string,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        hostname: host,
        port,
        path,
        method: options.method ?? 'GET',
        servername: host,
        ca,
        lookup: loopback,
        agent: false,
        headers: options.headers,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    // A bound on a hang only (a handshake Caddy never finishes), far beyond any busy machine: the
    // waits above retry such a request, and elsewhere the test fails naming it rather than at its timeout.
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer from Caddy in 60 s: ${host}${path}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Caddy, run in the foreground with the Caddyfile and `settings`, stopped when the test ends. */
function startCaddy(t: TestContext, dir: string, settings: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(
    'caddy',
    ['run', '--adapter', 'caddyfile', '--config', CADDYFILE],
    {
      env: caddyEnv(dir, settings),
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d));
  child.stderr.on('data', (d: Buffer) => (log += d));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  onEnd(t, async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
  });
  return { child, log: () => log };
}

/** The JSON lines of the server's log with this request id. */
function logLinesOf(output: string, requestId: string): any[] {
  return output
    .split('\n')
    .filter((line) => line.includes(`"reqId":"${requestId}"`))
    .map((line) => JSON.parse(line));
}

deployTest(
  'behind Caddy on loopback: TLS for the main host, a shop’s subdomain and custom domain, none for other hosts; client IPs forwarded',
  ['caddy'],
  async (t) => {
    const dir = tempDir(t);
    const httpsPort = await freePort();
    let httpPort = await freePort();
    while (httpPort === httpsPort) httpPort = await freePort();
    const mainHost = 'shop.localhost';
    const { env } = await processEnv(t);
    // The custom domain's verification record (/tls-ask asks DNS for it): a DNS server of the test's.
    const dns = await dnsServer(t);

    // The first owner, made with the CLI before the first start (docs/deployment.md): the server prints no key.
    const created = await cli(env, 'keys', 'create', '--email', 'owner@example.test');
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim().split('\n').at(-1)!;
    assert.match(key, /^shopd_/);

    const server = await startServer({
      ...env,
      LOG_LEVEL: 'info',
      TRUST_PROXY: '127.0.0.1',
      PUBLIC_URL: `https://${mainHost}:${httpsPort}`,
      STOREFRONT_DOMAIN: `shops.localhost:${httpsPort}`,
      MAIL_WORKER_ENABLED: 'false',
      WEBHOOK_WORKER_ENABLED: 'false',
      DNS_SERVERS: dns.server,
    });
    onEnd(t, () => server.stop());
    assert.doesNotMatch(server.output(), /First API key/, 'an owner made beforehand: no key in the log');
    const upstream = new URL(server.url).host;

    const caddy = startCaddy(t, dir, {
      SHOPD_DOMAIN: mainHost,
      SHOPD_UPSTREAM: upstream,
      ACME_EMAIL: 'ops@example.test',
      CADDY_EXTRA_OPTIONS: [
        'local_certs',
        'skip_install_trust',
        'admin off',
        `http_port ${httpPort}`,
        `https_port ${httpsPort}`,
        'default_bind 127.0.0.1',
        `storage file_system ${join(dir, 'storage')}`,
      ].join('\n'),
    });
    const rootCert = join(dir, 'storage/pki/authorities/local/root.crt');
    await waitUntil(() => {
      if (caddy.child.exitCode !== null) throw new Error(`caddy exited with ${caddy.child.exitCode}: ${caddy.log()}`);
      return existsSync(rootCert);
    }, "Caddy's local CA");
    const ca = readFileSync(rootCert, 'utf8');
    const via = (host: string, path: string, options?: Parameters<typeof fetchVia>[4]) =>
      fetchVia(httpsPort, ca, host, path, options);

    // The main host: its certificate is obtained at start; /health through the proxy.
    let health: Answer | undefined;
    await waitUntil(async () => {
      if (caddy.child.exitCode !== null) throw new Error(`caddy exited with ${caddy.child.exitCode}: ${caddy.log()}`);
      health = await via(mainHost, '/health').catch(() => undefined);
      return health !== undefined;
    }, 'Caddy to serve the main host over TLS');
    assert.equal(health!.status, 200);
    assert.equal(JSON.parse(health!.body).data.status, 'ok');

    // An owner sets up two shops through the proxy; one gets a custom domain.
    const api = (method: string, path: string, body?: unknown) =>
      via(mainHost, path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).then((res) => ({ status: res.status, body: JSON.parse(res.body) }));
    const keys = await api('POST', '/self/shops', { name: 'Loopback Keys' });
    assert.equal(keys.status, 200, JSON.stringify(keys.body));
    const books = await api('POST', '/self/shops', { name: 'Loopback Books' });
    assert.equal(books.status, 200, JSON.stringify(books.body));
    const domain = await api('PUT', `/self/${books.body.data.id}/settings/domain`, { domain: 'books.owner.test' });
    assert.equal(domain.status, 200, JSON.stringify(domain.body));
    dns.txt(domain.body.data.domainVerification.record, domain.body.data.domainVerification.value);
    const subdomainHost = `${keys.body.data.subdomain}.shops.localhost`;
    assert.equal(keys.body.data.storefrontUrl, `https://${subdomainHost}:${httpsPort}`);

    // A shop's subdomain: a certificate on demand, the shop's storefront at /.
    const home = await via(subdomainHost, '/');
    assert.equal(home.status, 200);
    assert.match(home.body, /Loopback Keys/);
    assert.match(home.body, /href="\/faq"/, 'the host-addressed storefront links from /');
    // The custom domain: the other shop, and only that one.
    const custom = await via('books.owner.test', '/');
    assert.equal(custom.status, 200);
    assert.match(custom.body, /Loopback Books/);
    assert.doesNotMatch(custom.body, /Loopback Keys/);

    // Hosts shopd does not serve get no certificate: the handshake fails, no request is made.
    for (const host of ['nobody.example.test', 'ghost-shop.shops.localhost']) {
      await assert.rejects(via(host, '/'), (err: NodeJS.ErrnoException) => {
        // Caddy ends the handshake with an alert: a certificate the client refused would be a
        // verification error instead, and means Caddy had one for this host.
        const what = `${host}: ${err.code} ${err.message}`;
        assert.equal(err.code, 'EPROTO', what);
        assert.match(err.message, /alert internal error/, what);
        return true;
      });
      // The server logs the ask once it has answered it, which may be after Caddy acted on the answer.
      await waitUntil(
        () => server.output().includes(`"url":"/tls-ask?domain=${host}"`),
        `Caddy to have asked shopd about ${host} before refusing it`,
      );
    }

    // The client's address, through X-Forwarded-For: a client at 127.0.0.2 is seen as 127.0.0.2,
    // whatever X-Forwarded-For it sends itself (Caddy replaces it; shopd believes only 127.0.0.1).
    const requestId = `deploy-proxy-${Math.random().toString(36).slice(2, 10)}`;
    const seen = await via(mainHost, '/health', {
      localAddress: '127.0.0.2',
      headers: { 'x-request-id': requestId, 'x-forwarded-for': '203.0.113.9' },
    });
    assert.equal(seen.status, 200);
    assert.equal(seen.headers['x-request-id'], requestId);
    await waitUntil(() => logLinesOf(server.output(), requestId).length > 0, 'the request in the server log');
    const [incoming] = logLinesOf(server.output(), requestId);
    assert.equal(incoming.req.remoteAddress, '127.0.0.2', JSON.stringify(incoming));
    assert.equal(incoming.req.host, `${mainHost}:${httpsPort}`);

    // /tls-ask is Caddy's: the proxy does not pass it on, while shopd answers it directly.
    const asked = await via(mainHost, `/tls-ask?domain=${subdomainHost}`);
    assert.equal(asked.status, 404);
    assert.equal(asked.body, '', "Caddy's own empty 404, not shopd's");
    const direct = await fetch(`${server.url}/tls-ask?domain=${subdomainHost}`);
    assert.equal(direct.status, 200);

    // Every certificate came from Caddy's local CA: no ACME server was asked.
    assert.doesNotMatch(caddy.log(), /acme-v02|letsencrypt|zerossl/i, caddy.log());
  },
);

deployTest(
  "the Caddyfile drops a client's own country header before shopd sees it (issue 36, L6)",
  ['caddy'],
  async (t) => {
    const dir = tempDir(t);
    const httpsPort = await freePort();
    let httpPort = await freePort();
    while (httpPort === httpsPort) httpPort = await freePort();
    // An upstream that records the headers it is sent, in shopd's place.
    const seen: IncomingHttpHeaders[] = [];
    const upstream = createHttpServer((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
    onEnd(t, () => new Promise<void>((done) => upstream.close(() => done())));
    const caddy = startCaddy(t, dir, {
      SHOPD_DOMAIN: 'shop.localhost',
      SHOPD_UPSTREAM: `127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      ACME_EMAIL: 'ops@example.test',
      CADDY_EXTRA_OPTIONS: [
        'local_certs',
        'skip_install_trust',
        'admin off',
        `http_port ${httpPort}`,
        `https_port ${httpsPort}`,
        'default_bind 127.0.0.1',
        `storage file_system ${join(dir, 'storage')}`,
      ].join('\n'),
    });
    const rootCert = join(dir, 'storage/pki/authorities/local/root.crt');
    await waitUntil(() => {
      if (caddy.child.exitCode !== null) throw new Error(`caddy exited with ${caddy.child.exitCode}: ${caddy.log()}`);
      return existsSync(rootCert);
    }, "Caddy's local CA");
    const ca = readFileSync(rootCert, 'utf8');
    let answer: Answer | undefined;
    await waitUntil(async () => {
      if (caddy.child.exitCode !== null) throw new Error(`caddy exited with ${caddy.child.exitCode}: ${caddy.log()}`);
      answer = await fetchVia(httpsPort, ca, 'shop.localhost', '/v2/public/shops/1/invoices', {
        headers: { 'cf-ipcountry': 'FR', 'x-marker': 'country-test' },
      }).catch(() => undefined);
      return answer !== undefined;
    }, 'Caddy to serve the main host over TLS');
    assert.equal(answer!.status, 200);
    const forwarded = seen.find((h) => h['x-marker'] === 'country-test');
    assert.ok(forwarded, 'the request reached the upstream');
    assert.equal(forwarded['cf-ipcountry'], undefined, 'the client-sent country header was dropped');
    assert.ok(forwarded['x-forwarded-for'], 'the proxy still says who the client is');
  },
);
