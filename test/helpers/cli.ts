import { type ExecFileException, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { resolve } from 'node:path';

export interface CliResult {
  /** The exit code; a process a signal ended reports 128 + the signal's number, as a shell does. */
  code: number;
  /** The signal that ended the process (it was killed, or crashed), null when it exited. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The compiled CLI, the code `shopd` (bin/shopd.js) runs in a deployment: an installed package has
 * no sources, so it always imports this. The test runner builds it before any test
 * (scripts/run-tests.mjs), and the tests run it directly, as server-process.ts runs the compiled
 * server. Through bin/shopd.js a checkout's CLI is chosen anew at every call: once any file under
 * src/ or web/ is saved after the build (an edit, `npm run typecheck` rewriting the admin's API
 * types), it runs the sources through tsx instead and says so on stderr. A test would then depend
 * on whether someone saved a file while it ran (the longer it runs, the likelier): a notice in the
 * stderr it compares, other code than the server it started, perhaps a half-edited tree.
 * bin/shopd.js's own choice is tested on a packed package (package.test.ts,
 * deploy-container.test.ts).
 */
export const compiledCli = resolve(import.meta.dirname, '../../dist/src/cli.js');

/**
 * Runs the compiled CLI in a process of its own, with `env` added to the environment. Answers
 * when the process has exited and its stdout and stderr have ended (execFile waits for 'close'),
 * so both are whole.
 */
export function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  if (!existsSync(compiledCli))
    return Promise.reject(new Error(`${compiledCli} is missing: run the tests with npm test, which builds it first`));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [compiledCli, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 10 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve(resultOf(err, stdout, stderr));
      },
    );
  });
}

/**
 * What execFile's callback says of a child, as a CliResult. A child a signal ended has no exit
 * code: the signal is named, so a failing test shows a kill (a timeout, the OOM killer) as one
 * rather than as an ordinary exit 1.
 */
export function resultOf(err: ExecFileException | null, stdout: string, stderr: string): CliResult {
  const signal = (err?.signal as NodeJS.Signals | undefined) ?? null;
  const code = !err ? 0 : typeof err.code === 'number' ? err.code : signal ? 128 + (constants.signals[signal] ?? 0) : 1;
  return { code, signal, stdout, stderr };
}
