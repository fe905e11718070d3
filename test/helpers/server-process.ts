import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The compiled server, as a deployment runs it (`node dist/src/server.js`). The test runner
 * builds it before any test (scripts/run-tests.mjs runs scripts/build.mjs --quick).
 */
export const compiledServer = resolve(import.meta.dirname, '../../dist/src/server.js');

/** Spawns the compiled server on `port` (0: any) with `env` added to this process's environment. */
export function spawnServer(env: Record<string, string>, port: number): ChildProcessWithoutNullStreams {
  if (!existsSync(compiledServer))
    throw new Error(`${compiledServer} is missing: run the tests with npm test, which builds it first`);
  return spawn(process.execPath, ['--enable-source-maps', compiledServer], {
    // No drain delay on stopping unless a test of it sets one: SIGTERM closes the listener at once.
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      PROBE_TIMEOUT_MS: '60000',
      SHUTDOWN_DELAY_MS: '0',
      ...env,
      PORT: String(port),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export interface EndedProcess {
  /** The exit code; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects a child's whole stdout and stderr and answers once it has ended: on 'close', which
 * comes after the exit and after both streams ended. 'exit' alone does not wait for them (Node:
 * "child process stdio streams might still be open"), so output read at 'exit' may lack its end.
 * Call it right after spawning, before any await.
 */
export function endOf(child: ChildProcessWithoutNullStreams): Promise<EndedProcess> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:{port}` */
  url: string;
  output(): string;
  errors(): string;
  /** SIGTERM, then waits for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts the compiled server and waits until its start-up is complete (it listens, and the
 * first-owner step is done). The deadline only bounds a hang.
 */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawnServer(env, 0);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // Only bounds a hang: a start under a busy machine (migrations) may take long.
    const timer = setTimeout(() => {
      // A server that never got going must not outlive the test: it would keep this file running.
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${stderr}`));
    }, 300_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      const match = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout);
      if (match && stdout.includes('"msg":"startup complete"')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    // 'close', not 'exit': the message then holds all the server wrote on stderr before it ended.
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  return {
    child,
    url,
    output: () => stdout,
    errors: () => stderr,
    stop: async (graceMs = 20_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
