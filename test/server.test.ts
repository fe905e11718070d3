import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { onEnd, processEnv } from './helpers/build.js';

/** Starts `src/server.ts` as `npm start` does, and waits until it listens. */
async function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      const match = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return { child, url, output: () => stdout };
}

test('first start prints one owner key; the server answers over HTTP and stops gracefully', async (t) => {
  const { env } = await processEnv(t);
  const first = await startServer(env);
  const keyLines = first.output().split('\n').filter((l) => l.startsWith('First API key'));
  assert.equal(keyLines.length, 1);
  const key = /(shopd_[A-Za-z0-9_-]{43})$/.exec(keyLines[0]!)![1]!;

  const health = await fetch(`${first.url}/health`);
  assert.equal(health.status, 200);
  const created = await fetch(`${first.url}/self/shops`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Over HTTP' }),
  });
  assert.equal(created.status, 200);
  assert.equal(((await created.json()) as { data: { name: string } }).data.name, 'Over HTTP');

  first.child.kill('SIGTERM');
  const [code] = await once(first.child, 'exit');
  assert.equal(code, 0, 'graceful shutdown exits cleanly');

  const second = await startServer(env);
  onEnd(t, () => second.child.kill('SIGKILL'));
  assert.ok(!second.output().includes('First API key'), 'the key is printed on the first start only');
  const shops = await fetch(`${second.url}/self/shops`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(((await shops.json()) as { data: unknown[] }).data.length, 1, 'data survived the restart');
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
});
