import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { type TestContext, test } from 'node:test';
import { engine } from './build.js';

/**
 * The tools the deployment tests (test/deploy-*.test.ts) run: the configs under deploy/ are
 * checked by the programs that read them. A tool that is missing skips its tests with a message
 * saying how to install it, unless DEPLOY_REQUIRED=1 (CI, see .ci/run): then they fail.
 */
export const deployTools = {
  caddy: { command: 'caddy', args: ['version'], install: 'apt-get install -y caddy' },
  systemdAnalyze: { command: 'systemd-analyze', args: ['--version'], install: 'apt-get install -y systemd' },
  dockerCompose: {
    command: 'docker-compose',
    args: ['version'],
    install: 'apt-get install -y --no-install-recommends docker-compose',
  },
} as const;

export type DeployTool = keyof typeof deployTools;

const found = new Map<DeployTool, boolean>();

/** Whether the tool starts here (`--version` or the like exits 0). */
export function hasTool(tool: DeployTool): boolean {
  let ok = found.get(tool);
  if (ok === undefined) {
    const { command, args } = deployTools[tool];
    try {
      execFileSync(command, args, { stdio: 'pipe', timeout: 60_000 });
      ok = true;
    } catch {
      ok = false;
    }
    found.set(tool, ok);
  }
  return ok;
}

const required = process.env.DEPLOY_REQUIRED === '1';

/**
 * The deployment and package tests do not depend on the database engine (the server behind the
 * proxy works the same on both): they run in the SQLite pass of the suite only, and the
 * PostgreSQL pass skips them, saving CI their time.
 */
export const sqlitePassOnly: string | false =
  engine === 'sqlite' ? false : 'engine-independent: runs in the SQLite pass';

/**
 * A test that needs `tools`: skipped, naming how to install what is missing, when one is not
 * there; failed instead when DEPLOY_REQUIRED=1. The timeout only bounds a hang.
 */
export function deployTest(name: string, tools: DeployTool[], fn: (t: TestContext) => Promise<void> | void): void {
  const missing = tools.filter((tool) => !hasTool(tool));
  const hint = missing.map(
    (tool) => `no ${deployTools[tool].command}: install it with \`${deployTools[tool].install}\``,
  );
  if (sqlitePassOnly) {
    test(name, { skip: sqlitePassOnly }, fn);
    return;
  }
  if (missing.length > 0 && required) {
    test(name, () => assert.fail(`DEPLOY_REQUIRED=1 but ${hint.join('; ')}`));
    return;
  }
  test(name, { skip: missing.length > 0 ? hint.join('; ') : false, timeout: 300_000 }, fn);
}
