import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { onEnd } from './build.js';

/** The environment that points the app's file store at a test S3 server: `build(t, await s3rver(t))`. */
export type S3Env = Record<
  | 'FILES_S3_BUCKET'
  | 'FILES_S3_ENDPOINT'
  | 'FILES_S3_REGION'
  | 'FILES_S3_ACCESS_KEY_ID'
  | 'FILES_S3_SECRET_ACCESS_KEY'
  | 'FILES_S3_FORCE_PATH_STYLE',
  string
>;

const BUCKET = 'shopd-files';

// Runs in the child: s3rver on 127.0.0.1, any free port, its bucket made; the port on stdout.
// The child ends when its stdin does, so it cannot outlive the test process.
const CHILD = `
const S3rver = require(process.argv[1]);
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.argv[2],
  configureBuckets: [{ name: process.argv[3] }] });
server.run().then(
  (address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'),
  (err) => { console.error(err); process.exit(1); },
);
process.stdin.on('end', () => process.exit(0)).resume();
`;

/**
 * A real S3-compatible server (s3rver) for one test, in a child process so that its memory and
 * work are not this process's (the memory tests read this process's RSS), storing under a temp
 * directory; stopped and removed when the test ends. Answers the FILES_S3_* environment for it.
 */
export async function s3rver(t: TestContext): Promise<S3Env> {
  const directory = mkdtempSync(join(tmpdir(), 'shopd-s3rver-'));
  const entry = createRequire(import.meta.url).resolve('s3rver');
  const child = spawn(process.execPath, ['-e', CHILD, entry, directory, BUCKET], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onEnd(t, async () => {
    child.stdin.end();
    child.kill();
    await exited;
    rmSync(directory, { recursive: true, force: true });
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${err}`)));
  });
  return {
    FILES_S3_BUCKET: BUCKET,
    FILES_S3_ENDPOINT: `http://127.0.0.1:${port}`,
    FILES_S3_REGION: 'us-east-1',
    FILES_S3_ACCESS_KEY_ID: 'S3RVER',
    FILES_S3_SECRET_ACCESS_KEY: 'S3RVER',
    FILES_S3_FORCE_PATH_STYLE: 'true',
  };
}

/** The keys of the objects in the test bucket (to check that nothing was left behind). */
export async function s3Keys(env: S3Env): Promise<string[]> {
  const client = new S3Client({
    region: env.FILES_S3_REGION,
    endpoint: env.FILES_S3_ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId: env.FILES_S3_ACCESS_KEY_ID, secretAccessKey: env.FILES_S3_SECRET_ACCESS_KEY },
  });
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: env.FILES_S3_BUCKET }));
    return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
  } finally {
    client.destroy();
  }
}
