#!/usr/bin/env node
// The module-boundary check (rules in .dependency-cruiser.cjs): cruises src/ and web/ and exits non-zero on
// any violation. It calls dependency-cruiser's API, as its `depcruise` command does, because that
// command refuses to start on Node 20 (dependency-cruiser 18 declares Node >= 22; the refusal is a
// version check in the command only). `--base DIR` cruises DIR/src with the same rules and this
// repository's tsconfig.json (test/lint/boundaries.test.ts uses it to show each rule failing).
// There is no list of tolerated violations: every one fails.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const { values } = parseArgs({
  options: { base: { type: 'string' } },
});
const root = resolve(import.meta.dirname, '..');
const options = await extractDepcruiseOptions(resolve(root, '.dependency-cruiser.cjs'));
const tsConfigFile = resolve(root, 'tsconfig.json');
options.tsConfig = { fileName: tsConfigFile };

process.chdir(values.base ? resolve(values.base) : root);
const result = await cruise(
  ['src', 'web'].filter((dir) => existsSync(dir)),
  options,
  undefined,
  { tsConfig: extractTSConfig(tsConfigFile) },
);

// module-cycles: dependency-cruiser's `circular` sees files; two modules can depend on each other
// through files that form no file cycle (a/x -> b/index -> b/y -> a/index -> a/z). Collapse every
// file to its module (type-only imports included: they are a dependency too) and refuse any cycle.
const moduleOf = (path) => /^src\/modules\/([^/]+)\//.exec(path)?.[1];
const edges = new Map();
for (const file of result.output.modules) {
  const from = moduleOf(file.source);
  if (!from) continue;
  for (const dep of file.dependencies) {
    const to = moduleOf(dep.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, `${file.source} → ${dep.resolved}`);
  }
}
const cycles = stronglyConnected(edges).filter((component) => component.length > 1);

// Every violation as one line: a file-level one by rule and import, a module cycle by each of its
// module-to-module edges.
const found = new Map();
for (const v of result.output.summary.violations) {
  if (v.rule.severity !== 'error') continue;
  const line = `${v.rule.name}: ${v.from} → ${v.to}`;
  found.set(line, v.cycle ? `${line} (cycle: ${v.cycle.map((c) => c.name ?? c).join(' → ')})` : line);
}
for (const component of cycles)
  for (const from of component)
    for (const [to, example] of edges.get(from) ?? [])
      if (component.includes(to))
        found.set(`module-cycles: ${from} → ${to}`, `module-cycles: ${from} → ${to} (${example})`);

for (const line of found.values()) console.log(`  error ${line}`);
const { summary } = result.output;
console.log(
  `\nlint:deps: ${summary.totalCruised} files, ${summary.totalDependenciesCruised} imports; ` +
    `${found.size} violation(s)`,
);
process.exit(found.size > 0 ? 1 : 0);

/** Tarjan's strongly connected components of a graph given as Map<node, Map<node, unknown>>. */
function stronglyConnected(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}
