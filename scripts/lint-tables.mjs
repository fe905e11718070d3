#!/usr/bin/env node
// The table-ownership check (STYLE.md point 13: "a module's door, a module's tables"), run by
// `npm run lint:tables` as part of `npm run lint`. test/lint/tables.test.ts shows each failure.
//
// Owners. A table belongs to the module whose *.table.ts declares it: the check reads the
// `Database` type of src/db/schema.ts with the TypeScript compiler and, for each of its
// properties (the table names), takes the module of the file that declares the property or,
// when schema.ts declares it, of the file that declares its row type
// (`products: ProductsTable` → src/modules/products/products.table.ts → products). A table
// declared outside src/modules (idempotency_keys, storage_probes) belongs to that folder
// (src/http, src/db), which no module may name either.
//
// Uses. In every file of src/modules/<m>/ (tests and migrations are not module code), the
// syntax tree, not the text, so comments and ordinary strings never count:
//   - Kysely writes: insertInto, replaceInto, updateTable, deleteFrom, mergeInto;
//   - Kysely reads: selectFrom and the joins (innerJoin, leftJoin, rightJoin, fullJoin,
//     crossJoin and their Lateral forms), `from` after updateTable, `using` after deleteFrom
//     or mergeInto; a name may carry an alias ('products as p') or be one of an array. A name
//     that is not a literal is read from its type (a union of literals, a type parameter's
//     constraint); one whose type is only `string` cannot be checked and is reported as such;
//   - raw SQL: the literal parts of sql`…` templates and of sql.raw('…') are scanned for
//     INSERT/REPLACE/MERGE INTO, UPDATE, DELETE FROM, TRUNCATE (writes) and FROM, JOIN, USING
//     (reads), after their comments and quoted strings are removed; ${sql.table(x)} in such a
//     place counts as x, any other sql.table(x) as a read of x.
// CTE names (`with('due', …)`) and any other name that is not a table of `Database` are
// ignored. Not seen: a table name handed to a helper that builds the SQL elsewhere
// (searchText(db, 'customers', …) in src/db), and a name whose type is `any`.
//
// Output: one line per violation, `src/modules/a/file.ts:LINE module a reads|writes table t of
// module b` (or `… door exports f from repository ./repository.js`), then the known ones and a
// summary; exit 1 on any new violation, stale baseline entry or unused read-model entry.
//
// Rules.
//   1. A module's SQL names only its own tables.
//   2. A declared read model may READ other modules' tables: scripts/table-read-models.json
//      names the module (and, to narrow it, its files), the tables and the reason. Writes to
//      another module's table are never allowed. An entry, or a table of one, that no code uses
//      any more fails the check ("unused read-model entry"), so the list stays minimal.
//   3. A module's door (index.ts) exports operations, not repository functions: it re-exports
//      no value from a file named *repository* (`export { x } from './repository.js'`,
//      `export * from …`, or an imported binding exported again). Types may pass.
//
// Baseline. scripts/table-ownership-baseline.json lists the violations known when the check
// came in, by module, table and read/write (door entries by exported name), not by line: they
// are reported as known and do not fail, while the modules are being fixed. Anything not in it
// fails, and so does an entry that no longer occurs ("stale baseline entry, remove it"): the
// baseline only shrinks.
//   node scripts/lint-tables.mjs                    check (exit 1 on a new violation or stale entry)
//   node scripts/lint-tables.mjs --all              list every place of the known violations, not a
//                                                   line per module
//   node scripts/lint-tables.mjs --prune-baseline   remove the stale entries from the baseline
//   node scripts/lint-tables.mjs --write-baseline   rewrite the baseline from the tree (adds too:
//                                                   only for generating it, never to hide new work)
//   node scripts/lint-tables.mjs --base DIR         check the tree DIR (its src/ and scripts/*.json)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const WRITES = new Set(['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);
const READS = new Set([
  'selectFrom',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
]);
/** Words that end a FROM item instead of naming its alias. */
const RESERVED = new Set(
  (
    'where join inner left right full cross natural on using group order limit offset having window union ' +
    'intersect except returning set values select from as for lateral and or not when then else end'
  ).split(' '),
);

const { values: flags } = parseArgs({
  options: {
    base: { type: 'string' },
    all: { type: 'boolean', default: false },
    'write-baseline': { type: 'boolean', default: false },
    'prune-baseline': { type: 'boolean', default: false },
  },
});
const root = resolve(flags.base ?? join(import.meta.dirname, '..'));
const readModelsFile = join(root, 'scripts/table-read-models.json');
const baselineFile = join(root, 'scripts/table-ownership-baseline.json');
const rel = (file) => relative(root, file).split(sep).join('/');
const moduleOf = (file) => /^src\/modules\/([^/]+)\//.exec(rel(file))?.[1];

// ---- The program: the files of src/ but migrations; the modules' files are the ones checked.
const schemaFile = join(root, 'src/db/schema.ts');
if (!existsSync(schemaFile)) fail(`${rel(schemaFile)} not found: it assembles the Database type the owners come from`);
const moduleFiles = listFiles(join(root, 'src/modules')).filter(
  (f) => /\.(ts|tsx|mts)$/.test(f) && !/\.d\.ts$|\.test\.tsx?$/.test(f) && !/\/migrations\//.test(rel(f)),
);
const sourceFiles = listFiles(join(root, 'src')).filter(
  (f) => /\.(ts|tsx|mts)$/.test(f) && !/\.d\.ts$|\.test\.tsx?$/.test(f) && !rel(f).startsWith('src/db/migrations/'),
);
const program = ts.createProgram(sourceFiles, compilerOptions());
const checker = program.getTypeChecker();

// ---- Owners: table name → module (or the folder of a table outside src/modules).
const owners = tableOwners();

// ---- Uses of tables, and doors.
/** @type {{ file: string, line: number, module: string, table: string, owner: string, access: 'read' | 'write' }[]} */
const uses = [];
/** @type {{ file: string, line: number, module: string, detail: string }[]} */
const unresolved = [];
/** @type {{ file: string, line: number, module: string, name: string, from: string }[]} */
const doorExports = [];
for (const file of moduleFiles) {
  const source = program.getSourceFile(file);
  if (!source) continue;
  scanFile(source, moduleOf(file));
  if (rel(file) === `src/modules/${moduleOf(file)}/index.ts`) scanDoor(source, moduleOf(file));
}

// ---- Rules, read models and baseline.
const readModels = loadReadModels();
const baseline = loadBaseline();
const usedReadModel = new Set();
/** Every violation, with the key it has in the baseline. */
const violations = [];
for (const use of uses) {
  if (use.owner === use.module) continue;
  if (use.access === 'read') {
    const allowed = readModels.findIndex(
      (m) => m.module === use.module && m.reads.includes(use.table) && (!m.files || m.files.includes(rel(use.file))),
    );
    if (allowed >= 0) {
      usedReadModel.add(`${allowed}:${use.table}`);
      continue;
    }
  }
  const verb = use.access === 'read' ? 'reads' : 'writes';
  const of = use.owner.startsWith('src/') ? use.owner : `module ${use.owner}`;
  violations.push({
    key: `${use.module} ${use.access} ${use.table}`,
    entry: { module: use.module, table: use.table, access: use.access },
    where: `${rel(use.file)}:${use.line}`,
    text: `module ${use.module} ${verb} table ${use.table} of ${of}`,
  });
}
for (const u of unresolved)
  violations.push({
    key: `${u.module} unresolved ${rel(u.file)}`,
    entry: { module: u.module, unresolved: rel(u.file) },
    where: `${rel(u.file)}:${u.line}`,
    text: `module ${u.module} names a table the check cannot resolve (${u.detail}): give it a literal type`,
  });
for (const d of doorExports)
  violations.push({
    key: `${d.module} door ${d.name}`,
    entry: { module: d.module, door: d.name },
    where: `${rel(d.file)}:${d.line}`,
    text: `module ${d.module} door exports ${d.name} from repository ${d.from}: export an operation instead`,
  });

if (flags['write-baseline'] || flags['prune-baseline']) {
  const found = new Map(violations.map((v) => [v.key, v.entry]));
  const entries = flags['write-baseline'] ? [...found.values()] : baseline.entries.filter((e) => found.has(keyOf(e)));
  entries.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  // One entry a line: fixing a module deletes its lines.
  const line = (e) =>
    `{ ${Object.entries(e)
      .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
      .join(', ')} }`;
  const list = entries.length > 0 ? `[\n${entries.map((e) => `    ${line(e)}`).join(',\n')}\n  ]` : '[]';
  writeFileSync(baselineFile, `{\n  "comment": ${JSON.stringify(baseline.comment)},\n  "known": ${list}\n}\n`);
  console.log(`lint:tables: ${rel(baselineFile)} now lists ${entries.length} known violation(s)`);
  process.exit(0);
}

const known = new Map();
let fresh = 0;
for (const v of violations) {
  if (baseline.keys.has(v.key)) {
    if (!known.has(v.key)) known.set(v.key, []);
    known.get(v.key).push(v);
    continue;
  }
  fresh++;
  console.log(`${v.where} ${v.text}`);
}
const stale = baseline.entries.filter((e) => !known.has(keyOf(e)));
for (const e of stale) console.log(`${rel(baselineFile)}: stale baseline entry, remove it: ${JSON.stringify(e)}`);
let unusedReadModels = 0;
readModels.forEach((m, i) => {
  for (const table of m.reads)
    if (!usedReadModel.has(`${i}:${table}`)) {
      unusedReadModels++;
      console.log(`${rel(readModelsFile)}: unused read-model entry, remove it: module ${m.module} reads ${table}`);
    }
});
// Known violations: each place with --all, else one line per module.
if (flags.all) {
  for (const [, places] of [...known].sort(([a], [b]) => a.localeCompare(b)))
    for (const v of places) console.log(`known: ${v.where} ${v.text}`);
} else if (known.size > 0) {
  console.log('known (scripts/table-ownership-baseline.json; every place with --all):');
  const byModule = new Map();
  for (const [, [{ entry }]] of known) {
    if (!byModule.has(entry.module)) byModule.set(entry.module, { door: 0, read: [], write: [], unresolved: 0 });
    const summary = byModule.get(entry.module);
    if (entry.door) summary.door++;
    else if (entry.unresolved) summary.unresolved++;
    else summary[entry.access].push(entry.table);
  }
  for (const [module, s] of [...byModule].sort(([a], [b]) => a.localeCompare(b))) {
    const parts = [];
    if (s.write.length > 0) parts.push(`writes ${s.write.sort().join(', ')}`);
    if (s.read.length > 0) parts.push(`reads ${s.read.sort().join(', ')}`);
    if (s.door > 0) parts.push(`door exports ${s.door} repository function(s)`);
    if (s.unresolved > 0) parts.push(`${s.unresolved} file(s) with unresolved table names`);
    console.log(`  known: module ${module} ${parts.join('; ')}`);
  }
}
const failures = fresh + stale.length + unusedReadModels;
console.log(
  `\nlint:tables: ${moduleFiles.length} module files, ${owners.size} tables, ${uses.length} table uses; ` +
    `${fresh} new violation(s), ${known.size} known (baseline, ${[...known.values()].flat().length} place(s)), ` +
    `${stale.length} stale baseline entr${stale.length === 1 ? 'y' : 'ies'}, ${unusedReadModels} unused read-model entr${unusedReadModels === 1 ? 'y' : 'ies'}`,
);
process.exit(failures > 0 ? 1 : 0);

// ---------------------------------------------------------------------------------------------

function fail(message) {
  console.error(`lint:tables: ${message}`);
  process.exit(2);
}

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}

/**
 * The compiler reads src/ alone (noResolve, no @types, no node_modules): the table names and
 * their literal types live there, and leaving out the libraries' declarations halves the time.
 */
function compilerOptions() {
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    noResolve: true,
    types: [],
    skipLibCheck: true,
    noEmit: true,
  };
}

function tableOwners() {
  const schema = program.getSourceFile(schemaFile);
  const declaration = schema?.statements.find(
    (s) => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === 'Database',
  );
  if (!declaration) fail(`no interface or type Database in ${rel(schemaFile)}`);
  const type = checker.getTypeAtLocation(declaration.name);
  const map = new Map();
  for (const property of checker.getPropertiesOfType(type)) {
    const decl = property.declarations?.[0];
    if (!decl) continue;
    let file = decl.getSourceFile().fileName;
    if (!moduleOf(file) && decl.type) {
      const rowType = checker.getTypeAtLocation(decl.type);
      const rowDecl = (rowType.aliasSymbol ?? rowType.getSymbol())?.declarations?.[0];
      if (rowDecl) file = rowDecl.getSourceFile().fileName;
    }
    map.set(property.name, moduleOf(file) ?? rel(dirname(file)));
  }
  return map;
}

/** The table a name as written stands for ('products as p', 'main.products' → products), if it is one. */
function tableName(text) {
  const name = text
    .trim()
    .split(/\s+as\s+/i)[0]
    .trim()
    .split('.')
    .pop();
  return owners.has(name) ? name : undefined;
}

function record(source, node, module, name, access, offset) {
  const table = tableName(name);
  if (!table) return;
  const position = offset ?? node.getStart(source);
  const line = source.getLineAndCharacterOfPosition(position).line + 1;
  uses.push({ file: source.fileName, line, module, table, owner: owners.get(table), access });
}

function scanFile(source, module) {
  const sqlNames = sqlTagNames(source);
  /** sql.table(…) calls already counted at a keyword of a raw template. */
  const counted = new Set();
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && sqlNames.has(node.tag.text)) {
      scanTemplate(source, module, node.template, counted);
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.arguments[0]) {
      // An expression builder's methods destructured: `({ exists, selectFrom }) => exists(selectFrom('t'))`.
      const method = node.expression.text;
      const access = WRITES.has(method) ? 'write' : READS.has(method) ? 'read' : undefined;
      if (access)
        for (const name of namesOf(source, module, node.arguments[0]))
          record(source, node.arguments[0], module, name, access);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const target = node.expression.expression;
      const [first] = node.arguments;
      const isSql = ts.isIdentifier(target) && sqlNames.has(target.text);
      if (isSql && method === 'raw' && first && ts.isStringLiteralLike(first)) {
        for (const hit of scanSql(first.getText(source).slice(1, -1)))
          if (hit.name) record(source, first, module, hit.name, hit.access, first.getStart(source) + 1 + hit.at);
      } else if (isSql && method === 'table' && first) {
        if (!counted.has(node))
          for (const name of namesOf(source, module, first)) record(source, first, module, name, 'read');
      } else if (first && !isSql) {
        const access = WRITES.has(method)
          ? 'write'
          : READS.has(method) ||
              (method === 'from' && chainHas(target, ['updateTable'])) ||
              (method === 'using' && chainHas(target, ['deleteFrom', 'mergeInto']))
            ? 'read'
            : undefined;
        if (access) for (const name of namesOf(source, module, first)) record(source, first, module, name, access);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The local names of Kysely's `sql` in a file (`import { sql } from 'kysely'`, or `sql` itself). */
function sqlTagNames(source) {
  const names = new Set(['sql']);
  for (const s of source.statements)
    if (ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === 'kysely') {
      const bindings = s.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) if ((e.propertyName ?? e.name).text === 'sql') names.add(e.name.text);
    }
  return names;
}

/** Whether a builder chain (receiver of a call) starts with one of these methods. */
function chainHas(expression, methods) {
  let node = expression;
  while (node) {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      if (methods.includes(node.expression.name.text)) return true;
      node = node.expression.expression;
    } else if (ts.isPropertyAccessExpression(node) || ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) {
      node = node.expression;
    } else return false;
  }
  return false;
}

/** The table names an argument can stand for: literals, arrays, conditionals, or a literal type. */
function namesOf(source, module, node) {
  if (ts.isStringLiteralLike(node)) return [node.text];
  if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap((e) => namesOf(source, module, e));
  if (ts.isConditionalExpression(node))
    return [...namesOf(source, module, node.whenTrue), ...namesOf(source, module, node.whenFalse)];
  if (ts.isFunctionLike(node)) return [];
  let inner = node;
  while (
    ts.isAsExpression(inner) ||
    ts.isParenthesizedExpression(inner) ||
    ts.isNonNullExpression(inner) ||
    ts.isSatisfiesExpression(inner)
  )
    inner = inner.expression;
  if (inner !== node) return namesOf(source, module, inner);
  const literals = literalsOf(checker.getTypeAtLocation(node));
  if (literals === 'unresolved') {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    unresolved.push({
      file: source.fileName,
      line,
      module,
      detail: `${node.getText(source)}: ${checker.typeToString(checker.getTypeAtLocation(node))}`,
    });
    return [];
  }
  return literals;
}

/**
 * String literals of a type; 'unresolved' for a plain string; [] for anything else: a builder, a
 * callback, or `any` (what Kysely's own types are to this compiler, which does not read them).
 */
function literalsOf(type) {
  if (type.flags & ts.TypeFlags.TypeParameter) {
    const constraint = checker.getBaseConstraintOfType(type);
    return constraint && constraint !== type ? literalsOf(constraint) : [];
  }
  if (type.isStringLiteral()) return [type.value];
  if (type.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral)) return 'unresolved';
  if (type.isUnion()) {
    const parts = type.types.map(literalsOf);
    return parts.includes('unresolved') ? 'unresolved' : parts.flat();
  }
  if (type.isIntersection()) {
    const parts = type.types.map(literalsOf).filter((p) => p === 'unresolved' || p.length > 0);
    const literal = parts.find((p) => p !== 'unresolved');
    return literal ?? (parts.length > 0 ? 'unresolved' : []);
  }
  const element = checker.isArrayType(type) || checker.isTupleType(type) ? checker.getTypeArguments(type) : undefined;
  if (element) {
    const parts = element.map(literalsOf);
    return parts.includes('unresolved') ? 'unresolved' : parts.flat();
  }
  return [];
}

/** A raw sql`…` template: its literal parts scanned as SQL; ${sql.table(x)} at a table's place counts as x. */
function scanTemplate(source, module, template, counted) {
  const parts = ts.isNoSubstitutionTemplateLiteral(template)
    ? [template]
    : [template.head, ...template.templateSpans.map((s) => s.literal)];
  // The parts' source text (raw, as written) joined by \0 where the substitutions were.
  const starts = [];
  let text = '';
  for (const part of parts) {
    const raw = part.getText(source);
    const closing = ts.isTemplateHead(part) || ts.isTemplateMiddle(part) ? 2 : 1;
    if (starts.length > 0) text += '\0';
    starts.push({ at: text.length, position: part.getStart(source) + 1 });
    text += raw.slice(1, raw.length - closing);
  }
  const positionOf = (at) => {
    const part = starts.findLast((s) => s.at <= at);
    return part.position + (at - part.at);
  };
  for (const hit of scanSql(text)) {
    if (hit.name) {
      record(source, template, module, hit.name, hit.access, positionOf(hit.at));
      continue;
    }
    const expression = unwrapSqlTable(source, template.templateSpans[hit.substitution].expression);
    if (!expression) continue;
    counted.add(expression.call);
    for (const name of namesOf(source, module, expression.argument))
      record(source, expression.argument, module, name, hit.access);
  }
}

/** sql.table(x), directly or through a const initialised with it: the call and x. */
function unwrapSqlTable(source, expression) {
  let node = expression;
  if (ts.isIdentifier(node)) {
    const declaration = checker.getSymbolAtLocation(node)?.valueDeclaration;
    if (!declaration || !ts.isVariableDeclaration(declaration) || !declaration.initializer) return undefined;
    node = declaration.initializer;
  }
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    node.expression.name.text === 'table' &&
    ts.isIdentifier(node.expression.expression) &&
    sqlTagNames(source).has(node.expression.expression.text) &&
    node.arguments[0]
  )
    return { call: node, argument: node.arguments[0] };
  return undefined;
}

/**
 * A light scan of SQL text: the names at the places of tables. Comments and quoted strings are
 * removed; \0 marks a substitution. Returns { name, at, access } for a written name and
 * { substitution, access } for a substitution in a table's place.
 */
function scanSql(text) {
  const tokens = [];
  let substitution = 0;
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (text.startsWith('--', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i) < 0 ? text.length : text.indexOf('*/', i) + 2;
    else if (c === "'") {
      let j = i + 1;
      while (j < text.length && !(text[j] === "'" && text[j + 1] !== "'")) j += text[j] === "'" ? 2 : 1;
      i = j + 1;
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      const end = text.indexOf(close, i + 1);
      const stop = end < 0 ? text.length : end;
      tokens.push({ kind: 'name', text: text.slice(i + 1, stop), at: i + 1 });
      i = stop + 1;
    } else if (c === '\0') {
      tokens.push({ kind: 'substitution', index: substitution++ });
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(i))[0];
      tokens.push({ kind: 'word', text: match, lower: match.toLowerCase(), at: i });
      i += match.length;
    } else {
      if ('(),;.'.includes(c)) tokens.push({ kind: c });
      i++;
    }
  }
  const word = (i) => (tokens[i]?.kind === 'word' ? tokens[i].lower : undefined);
  const hits = [];
  /** The table at tokens[i] (after ONLY or LATERAL), and the index after it; none for a subquery or a function. */
  const tableAt = (i, access) => {
    while (word(i) === 'only' || word(i) === 'lateral' || word(i) === 'table') i++;
    const token = tokens[i];
    if (token?.kind === 'substitution') {
      hits.push({ substitution: token.index, access });
      return i + 1;
    }
    if (token?.kind !== 'word' && token?.kind !== 'name') return undefined;
    let name = token;
    let next = i + 1;
    while (tokens[next]?.kind === '.' && (tokens[next + 1]?.kind === 'word' || tokens[next + 1]?.kind === 'name')) {
      name = tokens[next + 1];
      next += 2;
    }
    if (tokens[next]?.kind === '(') return undefined; // a function such as json_each(…)
    hits.push({ name: name.text, at: name.at, access });
    return next;
  };
  /** FROM and USING take a list: a, b AS x, (subquery) y, … */
  const listAt = (i, access) => {
    let at = i;
    for (;;) {
      let next;
      if (tokens[at]?.kind === '(') {
        let depth = 0;
        next = at;
        do {
          if (tokens[next]?.kind === '(') depth++;
          if (tokens[next]?.kind === ')') depth--;
          next++;
        } while (depth > 0 && next < tokens.length);
      } else next = tableAt(at, access);
      if (next === undefined) return;
      if (word(next) === 'as') next += 2;
      else if (tokens[next]?.kind === 'word' && !RESERVED.has(word(next))) next++;
      if (tokens[next]?.kind !== ',') return;
      at = next + 1;
    }
  };
  for (let i = 0; i < tokens.length; i++) {
    const w = word(i);
    const before = word(i - 1);
    if (w === 'from') {
      if (before === 'delete') tableAt(i + 1, 'write');
      else if (before !== 'distinct') listAt(i + 1, 'read');
    } else if (w === 'join') tableAt(i + 1, 'read');
    else if (w === 'using' && tokens[i + 1]?.kind !== '(') listAt(i + 1, 'read');
    else if (w === 'into') tableAt(i + 1, 'write');
    else if (w === 'truncate') tableAt(i + 1, 'write');
    else if (w === 'update' && !['for', 'do', 'on', 'key'].includes(before)) {
      tableAt(word(i + 1) === 'or' ? i + 3 : i + 1, 'write');
    }
  }
  return hits;
}

function scanDoor(source, module) {
  const line = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const isRepository = (specifier) => /repository/.test(basename(specifier));
  /** Values imported from a repository file: local name → [imported name, file]. */
  const imported = new Map();
  for (const s of source.statements) {
    if (ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && isRepository(s.moduleSpecifier.text)) {
      const clause = s.importClause;
      if (!clause || clause.isTypeOnly) continue;
      if (clause.name) imported.set(clause.name.text, ['default', s.moduleSpecifier.text]);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) imported.set(bindings.name.text, ['*', s.moduleSpecifier.text]);
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements)
          if (!e.isTypeOnly) imported.set(e.name.text, [(e.propertyName ?? e.name).text, s.moduleSpecifier.text]);
    }
  }
  const flag = (node, name, from) => doorExports.push({ file: source.fileName, line: line(node), module, name, from });
  for (const s of source.statements) {
    if (ts.isExportDeclaration(s)) {
      if (s.isTypeOnly) continue;
      const from = s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? s.moduleSpecifier.text : undefined;
      if (from && isRepository(from)) {
        if (!s.exportClause) flag(s, '*', from);
        else if (ts.isNamespaceExport(s.exportClause)) flag(s, s.exportClause.name.text, from);
        else for (const e of s.exportClause.elements) if (!e.isTypeOnly) flag(e, e.name.text, from);
      } else if (!from && s.exportClause && ts.isNamedExports(s.exportClause)) {
        for (const e of s.exportClause.elements) {
          const local = imported.get((e.propertyName ?? e.name).text);
          if (local && !e.isTypeOnly) flag(e, e.name.text, local[1]);
        }
      }
    } else if (ts.isExportAssignment(s) && ts.isIdentifier(s.expression) && imported.has(s.expression.text)) {
      flag(s, 'default', imported.get(s.expression.text)[1]);
    } else if (ts.isVariableStatement(s) && s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const d of s.declarationList.declarations) {
        let init = d.initializer;
        while (init && ts.isPropertyAccessExpression(init)) init = init.expression;
        if (init && ts.isIdentifier(init) && imported.has(init.text) && ts.isIdentifier(d.name))
          flag(d, d.name.text, imported.get(init.text)[1]);
      }
    }
  }
}

function loadReadModels() {
  if (!existsSync(readModelsFile)) return [];
  const json = JSON.parse(readFileSync(readModelsFile, 'utf8'));
  const models = json.readModels ?? [];
  for (const m of models) {
    const keys = Object.keys(m).filter((k) => !['module', 'files', 'reads', 'reason'].includes(k));
    if (keys.length > 0) fail(`${rel(readModelsFile)}: unknown key(s) ${keys.join(', ')}: a read model only reads`);
    if (typeof m.module !== 'string' || !Array.isArray(m.reads) || typeof m.reason !== 'string' || !m.reason.trim())
      fail(`${rel(readModelsFile)}: every read model needs module, reads and a reason`);
    for (const table of m.reads)
      if (!owners.has(table)) fail(`${rel(readModelsFile)}: ${table} is not a table of Database`);
      else if (owners.get(table) === m.module) fail(`${rel(readModelsFile)}: ${table} is ${m.module}'s own table`);
    for (const file of m.files ?? [])
      if (!file.startsWith(`src/modules/${m.module}/`))
        fail(`${rel(readModelsFile)}: ${file} is not in module ${m.module}`);
  }
  return models;
}

function keyOf(entry) {
  if (entry.door) return `${entry.module} door ${entry.door}`;
  if (entry.unresolved) return `${entry.module} unresolved ${entry.unresolved}`;
  return `${entry.module} ${entry.access} ${entry.table}`;
}

function loadBaseline() {
  const comment =
    'Table-ownership violations known when the check came in (scripts/lint-tables.mjs). Reported as known, ' +
    'they do not fail; remove an entry once its module is fixed (`node scripts/lint-tables.mjs --prune-baseline`). ' +
    'Never add one.';
  if (!existsSync(baselineFile)) return { comment, entries: [], keys: new Set() };
  const json = JSON.parse(readFileSync(baselineFile, 'utf8'));
  const entries = json.known ?? [];
  return { comment: json.comment ?? comment, entries, keys: new Set(entries.map(keyOf)) };
}
