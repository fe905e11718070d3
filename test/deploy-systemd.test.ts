import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { loadConfig, longestStopMs } from '../src/config.js';
import { onEnd } from './helpers/build.js';
import { deployTest } from './helpers/deploy-tools.js';

/**
 * deploy/shopd.service, checked by systemd's own `systemd-analyze verify` (it parses the unit as
 * systemd would and checks that ExecStart's program exists) and rated by `systemd-analyze
 * security`; deploy/shopd-cli, which runs commands as the service does.
 */

const unitText = readFileSync('deploy/shopd.service', 'utf8');

function run(command: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-unit-'));
  onEnd(t, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * What `systemd-analyze verify` says about this unit text, saved as shopd.service in `dir`:
 * nothing when it is clean. verify exits 0 on an unknown key or a value it cannot parse (it logs
 * "ignoring" and goes on, as systemd itself would), so anything it prints is a problem.
 */
async function verify(dir: string, text: string): Promise<string[]> {
  // ExecStart's program must exist; a machine whose node is not /usr/bin/node (nvm, say) checks the unit with its own.
  const checked = existsSync('/usr/bin/node')
    ? text
    : text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
  const file = join(dir, 'shopd.service');
  writeFileSync(file, checked);
  const { code, stdout, stderr } = await run('systemd-analyze', ['verify', file]);
  const said = `${stdout}${stderr}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return code === 0 ? said : [`exit code ${code}`, ...said];
}

/** The unit's settings: `[Section] Key` → its values, in order (a key may be given several times). */
function settings(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    const key = `[${section}] ${line.slice(0, eq)}`;
    found.set(key, [...(found.get(key) ?? []), line.slice(eq + 1)]);
  }
  return found;
}

deployTest(
  'systemd-analyze verify accepts the unit without a word, and catches a broken directive',
  ['systemdAnalyze'],
  async (t) => {
    const dir = tempDir(t);
    assert.deepEqual(await verify(dir, unitText), [], 'systemd-analyze verify is silent on deploy/shopd.service');

    // The same check fails on each of these: it is not silent whatever the unit says.
    const broken: [string, string][] = [
      ['an unknown key', unitText.replace('PrivateTmp=yes', 'PrivateTemp=yes')],
      ['a value systemd cannot parse', unitText.replace('ProtectSystem=strict', 'ProtectSystem=very')],
      [
        'a key in the wrong section',
        unitText.replace('Restart=on-failure', 'Restart=on-failure\nStartLimitIntervalSec=30s'),
      ],
      ['a program that does not exist', unitText.replace(/ExecStart=\S+/, 'ExecStart=/opt/shopd/no-such-program')],
    ];
    for (const [what, text] of broken) {
      assert.notEqual(text, unitText, `the unit was changed to have ${what}`);
      const problems = await verify(dir, text);
      assert.ok(problems.length > 0, `verify reports ${what}`);
    }
  },
);

deployTest(
  'the unit runs the compiled server as shopd, in /var/lib/shopd, hardened, with time for a graceful stop',
  ['systemdAnalyze'],
  async (t) => {
    const unit = settings(unitText);
    const one = (key: string) => {
      const values = unit.get(key);
      assert.equal(values?.length, 1, `${key} is set once: ${values}`);
      return values![0]!;
    };
    assert.equal(one('[Service] User'), 'shopd');
    assert.equal(one('[Service] ExecStart'), '/usr/bin/node /opt/shopd/dist/src/server.js');
    assert.equal(one('[Service] WorkingDirectory'), '/opt/shopd');
    assert.equal(one('[Service] EnvironmentFile'), '/etc/shopd/shopd.env');
    assert.match(one('[Service] Environment'), /(^| )DATA_DIR=\/var\/lib\/shopd( |$)/);
    assert.equal(one('[Service] StateDirectory'), 'shopd', 'systemd creates /var/lib/shopd for the user');
    assert.equal(one('[Service] Restart'), 'on-failure');
    const stop = /^(\d+)s$/.exec(one('[Service] TimeoutStopSec'));
    const longest = longestStopMs(loadConfig({}).shutdown);
    assert.ok(stop && Number(stop[1]) * 1000 > longest, `longer than the server’s own graceful close (${longest} ms)`);
    assert.match(
      readFileSync('src/server.ts', 'utf8'),
      /closeWithGrace\(\{ delay: longestStopMs\(config\.shutdown\) \}/,
      'the server bounds its stop by that',
    );
    const hardening: Record<string, string> = {
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      RestrictNamespaces: 'yes',
      LockPersonality: 'yes',
      SystemCallArchitectures: 'native',
      CapabilityBoundingSet: '',
      UMask: '0077',
      // V8's JIT writes code it then runs.
      MemoryDenyWriteExecute: 'no',
    };
    for (const [key, value] of Object.entries(hardening)) assert.equal(one(`[Service] ${key}`), value, key);
    assert.ok(unit.get('[Service] SystemCallFilter')?.[0]?.startsWith('@system-service'));
    assert.match(one('[Service] RestrictAddressFamilies'), /^AF_INET AF_INET6 AF_UNIX/);

    // systemd's own rating of what the service could still do (0 = nothing, 10 = everything).
    const dir = tempDir(t);
    const file = join(dir, 'shopd.service');
    writeFileSync(file, unitText);
    const rating = await run('systemd-analyze', ['security', '--offline=true', '--no-pager', file]);
    const level = /Overall exposure level for shopd\.service: ([\d.]+)/.exec(rating.stdout);
    assert.ok(level, `systemd-analyze security rated the unit: ${rating.stdout.slice(-300)}${rating.stderr}`);
    assert.ok(Number(level[1]) <= 2, `exposure ${level[1]} is at most 2.0`);
  },
);

deployTest(
  'shopd-cli runs a command as the unit runs the server, on its own copy of the code, passing its arguments on',
  [],
  async (t) => {
    assert.equal((await run('sh', ['-n', 'deploy/shopd-cli'])).code, 0, 'the script parses');
    // The script where an install has it, <code>/deploy/shopd-cli, and a fake systemd-run that
    // prints the arguments it got, one per line.
    const dir = realpathSync(tempDir(t));
    const code = join(dir, 'opt/shopd.new');
    mkdirSync(join(code, 'deploy'), { recursive: true });
    copyFileSync('deploy/shopd-cli', join(code, 'deploy/shopd-cli'));
    writeFileSync(join(dir, 'systemd-run'), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n');
    chmodSync(join(dir, 'systemd-run'), 0o755);
    const res = await run('sh', [join(code, 'deploy/shopd-cli'), 'keys', 'create', '--email', 'a b@example.com'], {
      PATH: `${dir}:${process.env.PATH}`,
    });
    assert.equal(res.code, 0, res.stderr);
    const args = res.stdout.trimEnd().split('\n');
    assert.deepEqual(args.slice(-6), [
      '/usr/bin/node',
      `${code}/bin/shopd.js`,
      'keys',
      'create',
      '--email',
      'a b@example.com',
    ]);
    assert.ok(args.includes(`--working-directory=${code}`));
    assert.ok(
      args.includes('--pipe') && args.includes('--wait'),
      'the output comes back to the terminal, not the journal',
    );
    // The same user, settings and data directory as the unit, which runs the code in its working directory.
    const unit = settings(unitText);
    const workingDirectory = unit.get('[Service] WorkingDirectory')![0]!;
    assert.ok(unit.get('[Service] ExecStart')![0]!.startsWith(`/usr/bin/node ${workingDirectory}/`));
    assert.ok(args.includes(`--uid=${unit.get('[Service] User')![0]}`));
    assert.ok(args.includes(`--property=EnvironmentFile=${unit.get('[Service] EnvironmentFile')![0]}`));
    assert.ok(args.includes(`--property=StateDirectory=${unit.get('[Service] StateDirectory')![0]}`));
    assert.ok(args.includes(`--property=UMask=${unit.get('[Service] UMask')![0]}`));
    for (const pair of unit.get('[Service] Environment')![0]!.split(' '))
      assert.ok(args.includes(`--setenv=${pair}`), pair);
  },
);
