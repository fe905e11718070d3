import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type TestContext, test } from 'node:test';
import { onEnd, processEnv } from './helpers/build.js';
import { deployTest, sqlitePassOnly } from './helpers/deploy-tools.js';
import { waitUntil } from './helpers/wait.js';

/**
 * deploy/Dockerfile, .dockerignore and deploy/compose.yaml. No container engine runs here, so
 * the image is never built in this suite. What is checked instead: the compose file by
 * docker-compose's own `config` (it validates the file against the Compose schema and resolves
 * variables, paths and profiles without an engine); the Dockerfile's inputs (every COPY source
 * exists and is in the build context, every RUN is the package's own scripts); and its runtime
 * stage, reproduced in a temp dir (the built dist/, bin/, package.json and node_modules after the
 * Dockerfile's own `npm prune`, no sources), which must start and serve.
 */

const root = resolve(import.meta.dirname, '..');
const dockerfile = readFileSync(join(root, 'deploy/Dockerfile'), 'utf8');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      command,
      args,
      { env: options.env ?? process.env, cwd: options.cwd ?? root, timeout: 240_000, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) =>
        done({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          // A failure without an exit code (a signal, a spawn error) says what it was.
          stderr: err && typeof err.code !== 'number' ? `${stderr}\n[${err.message}; signal ${err.signal}]` : stderr,
        }),
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

function tempDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Instruction {
  stage: number;
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments dropped), each with its stage's number. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  let stage = -1;
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      if (keyword === 'FROM') stage++;
      return { stage, keyword: keyword!, args: rest.join(' ') };
    });
}

/** `.dockerignore` patterns as regular expressions over context-relative paths (the forms it uses: names, `*`, `**`). */
function ignoredBy(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((pattern) => {
      const body = pattern
        .replace(/^\/+|\/+$/g, '')
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .split('**/')
        .map((part) => part.replace(/\*/g, '[^/]*'))
        .join('(?:.*/)?');
      return new RegExp(`^${body}(?:/.*)?$`);
    });
  return (path) => patterns.some((re) => re.test(path));
}

test('the Dockerfile builds with the package’s own scripts from files that are in its build context', {
  skip: sqlitePassOnly,
}, () => {
  const steps = instructions(dockerfile);
  const froms = steps.filter((s) => s.keyword === 'FROM');
  assert.deepEqual(
    froms.map((s) => s.args),
    ['node:20-bookworm-slim AS build', 'node:20-bookworm-slim'],
    'two stages on node:20-bookworm-slim',
  );
  assert.ok(Number(/>=(\d+)/.exec(packageJson.engines.node)![1]) <= 20, 'the image’s Node.js satisfies engines.node');

  const ignored = ignoredBy(readFileSync(join(root, '.dockerignore'), 'utf8'));
  // What the compile reads must reach the build: COPY . . brings the whole context.
  for (const needed of ['src', 'web/storefront', 'web/admin/src', 'web/admin/vite.config.ts', 'scripts', 'bin'])
    assert.ok(!ignored(needed), `${needed} is in the build context`);
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md'])
    assert.ok(!ignored(file), `${file} is in the build context`);
  // What must not: local installs and builds (the image makes its own), data, secrets.
  for (const kept of [
    'node_modules',
    'node_modules/x/y.js',
    'dist',
    'data/shopd.sqlite',
    '.env',
    'deploy/.env',
    '.git',
    'web/admin/dist/index.html',
  ])
    assert.ok(ignored(kept), `${kept} is left out of the build context`);

  for (const step of steps.filter((s) => s.keyword === 'COPY')) {
    const parts = step.args.split(/\s+/);
    const from = parts.find((p) => p.startsWith('--from='));
    const sources = parts.filter((p) => !p.startsWith('--')).slice(0, -1);
    assert.ok(sources.length > 0, `COPY ${step.args}`);
    for (const source of sources) {
      if (from) {
        // From the build stage, whose WORKDIR is /app: what `npm run build` leaves there.
        assert.equal(from, '--from=build');
        const path = source.replace(/^\/app\//, '').replace(/\/$/, '');
        assert.ok(existsSync(join(root, path)), `${source} exists after npm ci and npm run build (${path})`);
      } else if (source !== '.') {
        const path = source.replace(/\/$/, '');
        assert.ok(existsSync(join(root, path)), `COPY ${source}: it exists`);
        assert.ok(!ignored(path), `COPY ${source}: it is in the build context`);
      }
    }
  }
  // Every RUN step: npm's own commands, or the package's scripts.
  const npmCommands = steps
    .filter((s) => s.keyword === 'RUN')
    .flatMap((s) => s.args.split('&&').map((c) => c.trim()))
    .filter((c) => c.startsWith('npm '));
  assert.deepEqual(
    npmCommands.map((c) => c.split(/\s+/).slice(0, 3).join(' ')),
    ['npm ci --no-audit', 'npm run build', 'npm prune --omit=dev'],
  );
  for (const command of npmCommands.filter((c) => c.startsWith('npm run '))) {
    const script = command.split(/\s+/)[2]!;
    assert.ok(packageJson.scripts[script], `package.json has the script ${script}`);
  }
  // The runtime: a non-root user, the data volume, every interface, the compiled server.
  const runtime = steps.filter((s) => s.stage === 1);
  const env = runtime.find((s) => s.keyword === 'ENV')!.args;
  for (const pair of ['NODE_ENV=production', 'HOST=0.0.0.0', 'DATA_DIR=/var/lib/shopd'])
    assert.ok(env.includes(pair), pair);
  assert.equal(runtime.find((s) => s.keyword === 'USER')?.args, 'shopd');
  assert.equal(runtime.find((s) => s.keyword === 'VOLUME')?.args, '/var/lib/shopd');
  const cmd = JSON.parse(runtime.find((s) => s.keyword === 'CMD')!.args) as string[];
  assert.deepEqual(cmd, ['node', 'dist/src/server.js']);
  assert.ok(existsSync(join(root, cmd[1]!)), 'the build makes the file CMD runs');
  const health = runtime.find((s) => s.keyword === 'HEALTHCHECK')!.args;
  const probe = JSON.parse(health.slice(health.indexOf('CMD ') + 4)) as string[];
  assert.deepEqual(probe.slice(0, 2), ['node', '-e']);
  assert.match(probe[2]!, /fetch\(`http:\/\/127\.0\.0\.1:\$\{process\.env\.PORT\}\/ready`\)/);
  assert.equal(runtime.find((s) => s.keyword === 'WORKDIR')?.args, '/opt/shopd');
});

/** Spawns `node dist/src/server.js` in `dir` and waits until it has started; stopped when the test ends. */
async function startIn(t: TestContext, dir: string, env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  onEnd(t, async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  await waitUntil(() => {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr}${stdout}`);
    return stdout.includes('"msg":"startup complete"');
  }, 'the server in the runtime stage to start');
  const url = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout)?.[1];
  assert.ok(url, stdout);
  return { url, output: () => stdout };
}

test('the runtime stage (dist/, bin/, package.json and node_modules after the Dockerfile’s prune) serves without the sources', {
  skip: sqlitePassOnly,
}, async (t) => {
  const prune = instructions(dockerfile)
    .filter((s) => s.keyword === 'RUN')
    .flatMap((s) => s.args.split('&&').map((c) => c.trim()))
    .find((c) => c.startsWith('npm prune'))!;
  const dir = tempDir(t, 'shopd-image-');
  for (const entry of ['package.json', 'package-lock.json', 'bin', 'dist', 'node_modules'])
    cpSync(join(root, entry), join(dir, entry), { recursive: true, verbatimSymlinks: true });
  // The Dockerfile's own command; --offline only because this machine reaches no registry but npm's (it needs none).
  const args = [...prune.split(/\s+/).slice(1), '--offline'];
  const pruned = await run('npm', args, { cwd: dir });
  assert.equal(pruned.code, 0, `${prune}: ${pruned.stderr}`);
  // What npm's lockfile marks as needed by development alone is gone; every dependency is there.
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const devOnly = Object.keys(packageJson.devDependencies).filter((name) => lock.packages[`node_modules/${name}`]?.dev);
  assert.ok(devOnly.includes('playwright-core'), devOnly.join());
  for (const name of devOnly)
    assert.ok(!existsSync(join(dir, 'node_modules', name)), `${name} (a devDependency) is pruned`);
  for (const name of Object.keys(packageJson.dependencies))
    assert.ok(existsSync(join(dir, 'node_modules', name)), `${name} is kept`);
  assert.ok(!existsSync(join(dir, 'src')) && !existsSync(join(dir, 'web')), 'no sources in the runtime stage');
  rmSync(join(dir, 'package-lock.json'));

  const { env } = await processEnv(t);
  const server = await startIn(t, dir, { ...env, HOST: '127.0.0.1', DATA_DIR: join(dir, 'data') });
  const health = await fetch(`${server.url}/health`);
  assert.equal(health.status, 200);
  const admin = await fetch(`${server.url}/admin/`);
  assert.equal(admin.status, 200, 'the built admin is in dist/');
  assert.match(await admin.text(), /<script[^>]+src="\/admin\//);
  assert.ok(statSync(join(dir, 'data')).isDirectory(), 'DATA_DIR is made');
  // The package's command runs the compiled CLI there (no sources to fall back on).
  const help = await run(process.execPath, ['bin/shopd.js', '--help'], { cwd: dir, env: { ...process.env, ...env } });
  assert.equal(help.code, 0, `${help.stderr}\n${help.stdout}`);
  assert.match(help.stdout, /migrate/);
  assert.doesNotMatch(help.stderr, /running them/, 'bin/shopd.js runs dist/, not sources');
});

/** The Compose file as `docker-compose config` resolves it, as JSON (`--format json`, or its YAML through Compose's own Python). */
async function composeConfig(file: string, envFile: string, extra: string[] = []) {
  const base = ['-f', file, '--env-file', envFile, ...extra, 'config'];
  // Only PATH and HOME: no variable of this machine's environment takes part.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  const json = await run('docker-compose', [...base, '--format', 'json'], { env });
  // Compose v2 knows --format json; v1 prints its usage instead.
  if (json.code === 0 && json.stdout.trimStart().startsWith('{')) return { ...json, config: JSON.parse(json.stdout) };
  const yaml = await run('docker-compose', base, { env });
  if (yaml.code !== 0) return { ...yaml, config: undefined };
  // Compose v1 is Python and reads YAML with PyYAML: its interpreter turns the output into JSON.
  const launcher = readFileSync((await run('sh', ['-c', 'command -v docker-compose'])).stdout.trim(), 'utf8');
  const python = /^#!\s*(\S+)/.exec(launcher)?.[1] ?? 'python3';
  const converted = await run(
    python,
    ['-c', 'import json,sys,yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'],
    {
      input: yaml.stdout,
    },
  );
  assert.equal(converted.code, 0, converted.stderr);
  return { ...yaml, config: JSON.parse(converted.stdout) };
}

/** deploy/compose.env.example with its secrets filled in, as an operator makes deploy/.env. */
function envFile(t: TestContext, changes: Record<string, string> = {}): string {
  let text = readFileSync(join(root, 'deploy/compose.env.example'), 'utf8')
    .replace(/^SECRET_KEY=$/m, 'SECRET_KEY=0123456789abcdef0123456789abcdef')
    .replace(/^POSTGRES_PASSWORD=$/m, 'POSTGRES_PASSWORD=pgpass0123');
  for (const [name, value] of Object.entries(changes))
    text = text.replace(new RegExp(`^${name}=.*$`, 'm'), `${name}=${value}`);
  const file = join(tempDir(t, 'shopd-compose-'), '.env');
  writeFileSync(file, text);
  return file;
}

deployTest(
  'docker-compose config accepts compose.yaml with compose.env.example filled in: shopd, PostgreSQL, Redis, optional Caddy',
  ['dockerCompose'],
  async (t) => {
    const res = await composeConfig('deploy/compose.yaml', envFile(t));
    assert.equal(res.code, 0, res.stderr);
    const { services, volumes, networks } = res.config;
    assert.deepEqual(Object.keys(services).sort(), ['caddy', 'postgres', 'redis', 'shopd']);
    const { shopd, postgres, redis, caddy } = services;

    // shopd: built from the repository with deploy/Dockerfile, after its database and Redis are healthy.
    assert.equal(shopd.build.context, root);
    assert.ok(existsSync(join(shopd.build.context, shopd.build.dockerfile)));
    assert.deepEqual(shopd.depends_on, {
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    for (const service of [postgres, redis]) assert.ok(service.healthcheck.test.length > 1);
    const e = shopd.environment;
    assert.equal(e.SECRET_KEY, '0123456789abcdef0123456789abcdef');
    assert.equal(
      e.DATABASE_URL,
      `postgres://${postgres.environment.POSTGRES_USER}:pgpass0123@postgres:5432/${postgres.environment.POSTGRES_DB}`,
    );
    assert.equal(postgres.environment.POSTGRES_PASSWORD, 'pgpass0123');
    assert.equal(e.REDIS_URL, 'redis://redis:6379');
    assert.equal(e.PUBLIC_URL, 'https://shop.example.com');
    assert.equal(e.STOREFRONT_DOMAIN, 'shops.example.com');
    assert.equal(e.TRUST_PROXY, networks.default.ipam.config[0].subnet, 'the proxies are in the containers’ network');
    assert.ok(
      shopd.volumes.some((v: any) =>
        (typeof v === 'string' ? v : `${v.source}:${v.target}`).startsWith('shopd-data:/var/lib/shopd'),
      ),
      JSON.stringify(shopd.volumes),
    );
    assert.ok(
      postgres.volumes.some((v: any) =>
        String(typeof v === 'string' ? v : v.target).includes('/var/lib/postgresql/data'),
      ),
    );
    assert.deepEqual(Object.keys(volumes).sort(), [
      'caddy-config',
      'caddy-data',
      'postgres-data',
      'redis-data',
      'shopd-data',
    ]);

    // Caddy: only with --profile caddy, this repository's Caddyfile, shopd as its upstream.
    assert.deepEqual(caddy.profiles, ['caddy']);
    const caddyfile = caddy.volumes
      .map((v: any) => (typeof v === 'string' ? v : `${v.source}:${v.target}`))
      .find((v: string) => v.includes('/etc/caddy/Caddyfile'));
    assert.ok(caddyfile?.startsWith(`${join(root, 'deploy/Caddyfile')}:`), caddyfile);
    assert.equal(caddy.environment.SHOPD_UPSTREAM, 'shopd:3000');
    assert.equal(caddy.environment.SHOPD_DOMAIN, 'shop.example.com');
    assert.deepEqual(caddy.depends_on, { shopd: { condition: 'service_healthy' } });
  },
);

deployTest(
  'docker-compose config refuses compose.yaml without its secrets, and a broken compose file',
  ['dockerCompose'],
  async (t) => {
    for (const name of ['SECRET_KEY', 'POSTGRES_PASSWORD', 'SHOPD_DOMAIN']) {
      const res = await composeConfig('deploy/compose.yaml', envFile(t, { [name]: '' }));
      assert.notEqual(res.code, 0, `${name} empty`);
      assert.match(res.stderr, new RegExp(`set ${name} in deploy/.env`));
    }
    const dir = tempDir(t, 'shopd-compose-broken-');
    const broken = join(dir, 'compose.yaml');
    writeFileSync(
      broken,
      readFileSync(join(root, 'deploy/compose.yaml'), 'utf8').replace(
        '    depends_on:\n      postgres:',
        '    depend_on:\n      postgres:',
      ),
    );
    const res = await composeConfig(broken, envFile(t));
    assert.notEqual(res.code, 0, 'a misspelt key fails the check');
    assert.match(res.stderr, /depend_on/);
  },
);
