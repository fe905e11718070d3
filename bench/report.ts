import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { type Engine, RESULTS_DIR, type SeedMeta } from './config.js';
import type { Row, ServerInfo } from './scenarios.js';

/** The report: one markdown table, printed and written with its JSON to bench/results/. */
export interface Report {
  date: string;
  engine: Engine;
  quick: boolean;
  machine: { cores: number; cpu: string; node: string; platform: string };
  timing: { warmupSeconds: number; seconds: number; rounds: number };
  seed: { seededAt: string; seedSeconds: number; counts: SeedMeta['counts'] };
  server: ServerInfo;
  notes: string[];
  rows: Row[];
  errors: { target: string; message: string }[];
}

export function machine(): Report['machine'] {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function toMarkdown(report: Report): string {
  const engineName = report.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const lines = [
    `### shopd benchmark — ${engineName}${report.quick ? ' (quick run)' : ''}`,
    '',
    `${report.date} · ${report.machine.cores} cores (${report.machine.cpu}) · Node ${report.machine.node} · ` +
      `${report.timing.rounds} rounds × ${report.timing.seconds} s after ${report.timing.warmupSeconds} s warm-up · ` +
      `seed: ${report.seed.counts.invoices.toLocaleString('en')} invoices, ${report.seed.counts.customers.toLocaleString('en')} customers, ${report.seed.counts.listings} listings (${report.seed.seedSeconds} s)`,
    '',
    '| target | scenario | measured | target threshold | met |',
    '|---|---|---|---|---|',
    ...report.rows.map(
      (r) =>
        `| ${r.target} | ${escapeCell(r.scenario)} | ${escapeCell(r.measured)} | ${r.threshold} | ${r.met === null ? '—' : r.met ? 'yes' : r.correctness ? '**no (correctness)**' : 'no'} |`,
    ),
    ...report.errors.map((e) => `| ${e.target} | **error** | ${escapeCell(e.message)} | — | no |`),
  ];
  if (report.notes.length > 0) lines.push('', ...report.notes.map((n) => `- ${n}`));
  const scored = report.rows.filter((r) => r.met !== null);
  lines.push('', `${scored.filter((r) => r.met).length} of ${scored.length + report.errors.length} targets met.`);
  return `${lines.join('\n')}\n`;
}

/** A run of every target is `<engine>-latest`; a run of some (--only) does not replace it. */
export function writeReport(report: Report, complete: boolean): { json: string; markdown: string } {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const name = `${report.engine}-latest${complete ? '' : '-partial'}`;
  const json = join(RESULTS_DIR, `${name}.json`);
  const markdown = join(RESULTS_DIR, `${name}.md`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, toMarkdown(report));
  return { json, markdown };
}
