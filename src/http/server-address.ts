import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Config, defaultLinkHost } from '../config.js';

/**
 * Where the running server answers, for the links the CLI prints (`seed --demo`, `users
 * setup-link`). A server started with `PORT=8080 npm start` and a seed run from another terminal
 * without it would otherwise print links to :3000. The server writes its address to
 * `DATA_DIR/server.json` once it listens; a command run without `PUBLIC_URL` or `PORT` of its own
 * uses that address while the process that wrote it still runs.
 */
const FILE = 'server.json';

interface Recorded {
  url: string;
  pid: number;
}

/** The base of the links a server writes: `PUBLIC_URL`, else the address it really listens on (`PORT=0` picks one). */
export function listeningUrl(
  config: Pick<Config, 'publicUrl' | 'host' | 'port'>,
  address: AddressInfo | string | null,
): string {
  // PUBLIC_URL is its own; only the address config derived from HOST and PORT names the port in use.
  const base = `http://${defaultLinkHost(config.host)}`;
  if (config.publicUrl !== `${base}:${config.port}` || address === null || typeof address === 'string')
    return config.publicUrl;
  return `${base}:${address.port}`;
}

/** Records this process's address; a failure (a read-only DATA_DIR) only costs the CLI's guess. */
export function recordServerAddress(dataDir: string, url: string): void {
  const file = join(dataDir, FILE);
  const record: Recorded = { url, pid: process.pid };
  try {
    writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    renameSync(`${file}.${process.pid}`, file);
  } catch {
    rmSync(`${file}.${process.pid}`, { force: true });
  }
}

/** Removes the record on a clean stop, unless another server has written its own since. */
export function forgetServerAddress(dataDir: string): void {
  const recorded = read(dataDir);
  if (recorded?.pid === process.pid) rmSync(join(dataDir, FILE), { force: true });
}

/** The base for the links a CLI command prints. */
export function linkBase(config: Pick<Config, 'publicUrl' | 'dataDir'>, env: NodeJS.ProcessEnv = process.env): string {
  if (env.PUBLIC_URL !== undefined || env.PORT !== undefined) return config.publicUrl;
  const recorded = read(config.dataDir);
  return recorded && running(recorded.pid) ? recorded.url : config.publicUrl;
}

function read(dataDir: string): Recorded | undefined {
  try {
    const value = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as Partial<Recorded>;
    if (typeof value.url === 'string' && /^https?:\/\//.test(value.url) && Number.isSafeInteger(value.pid))
      return value as Recorded;
  } catch {
    // No server has recorded an address here (or the file is not ours): the configured one it is.
  }
  return undefined;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
