#!/usr/bin/env node
// Runs every test file under test/ and e2e/ with node's test runner (through tsx), on SQLite by default
// or on PostgreSQL with DB=postgres. Extra arguments are passed on (e.g. a file to run alone).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
// First the build (incremental): the tests that start servers and the CLI in processes of their own
// (bin/shopd.js, test/helpers/server-process.ts) run the compiled output, as a deployment does.
const built = spawnSync(process.execPath, ['scripts/build.mjs', '--quick'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
// The browser tests under e2e/ (chromium, see e2e/harness.ts) run with the rest.
const files = args.some((a) => a.endsWith('.ts')) ? [] : [...findTests('test'), ...findTests('e2e')].sort();
const db = process.env.DB === 'postgres' ? 'PostgreSQL' : 'SQLite';
console.log(`# shopd tests on ${db}: ${files.length || 'selected'} file(s)`);
// Four test files at a time. Measured on the 2-core machine CI runs on (14 files, 2, 3, 4 and 6
// at a time, each engine): once the files are CPU-bound the wall time hardly moves (SQLite 62–68 s,
// PostgreSQL 77–86 s, within the machine's noise), so 4 stays: it keeps PostgreSQL round trips
// and the CLI tests' child processes overlapped with other files' work.
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', ...args, ...files], {
  stdio: 'inherit',
  // Tests that stand up local HTTPS endpoints (dynamic delivery) use this self-signed certificate.
  env: { ...process.env, NODE_ENV: 'test', NODE_EXTRA_CA_CERTS: 'test/fixtures/tls/cert.pem' },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
