import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { onEnd } from './build.js';

export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a Redis answers at the test URL (tests of the Redis stores skip otherwise). */
export async function redisAvailable(): Promise<boolean> {
  const probe = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface OwnRedis {
  url: string;
  /** Starts it (again, on the same port, empty): resolves once it accepts connections. */
  start(): Promise<void>;
  /** Kills it (SIGKILL, as a crash): resolves once the process is gone. */
  stop(): Promise<void>;
}

/**
 * A `redis-server` of the test's own on a free port of 127.0.0.1, without persistence, for tests
 * that stop and restart Redis under requests; started, and killed when the test ends (after the
 * apps built later have closed: onEnd runs last in, first out).
 */
export async function ownRedisServer(t: TestContext): Promise<OwnRedis> {
  const port = await freePort();
  let server: ChildProcess | null = null;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      server = child;
      let output = '';
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('error', reject);
      // 'close', not 'exit': the message then holds all redis-server wrote before it ended.
      child.on('close', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
    });
  const stop = async () => {
    const child = server;
    server = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = once(child, 'exit');
    child.kill('SIGKILL');
    await gone;
  };
  onEnd(t, stop);
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop };
}
