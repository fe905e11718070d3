#!/usr/bin/env node
// The admin's wording lives in one place, web/admin/src/strings.ts (docs/admin.md). Run by
// `npm run lint`; test/lint/admin-strings.test.ts shows it failing and passing.
//
// Every .tsx under the directory (web/admin/src by default) but strings.ts is parsed with the
// TypeScript compiler, and two things are reported, from the syntax tree, not the text:
//   - JSX text with a letter in it (`<p>No orders yet</p>`); punctuation and whitespace between
//     elements (`·`, `—`, `(`) may stay;
//   - a string literal with a letter given to the attribute aria-label, title, placeholder, alt or
//     label, directly (`title="Delete"`) or as an expression (`title={'Delete'}`, a template
//     without substitutions).
// Anything else (class names, route paths, test ids, API values) is not the check's business.
//
//   node scripts/lint-admin-strings.mjs [DIR]   exit 1, with a file:line list, on any finding
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label']);
const LETTER = /\p{L}/u;

const cwd = process.cwd();
const dir = resolve(process.argv[2] ?? join(import.meta.dirname, '../web/admin/src'));

/** @param {string} path @returns {string[]} */
function tsxFiles(path) {
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
    const full = join(path, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsxFiles(full);
    return entry.name.endsWith('.tsx') && entry.name !== 'strings.tsx' ? [full] : [];
  });
}

/** @type {string[]} */
const findings = [];

for (const file of tsxFiles(dir).sort()) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const name = relative(cwd, file).split(sep).join('/');
  /** @param {ts.Node} node @param {string} what */
  const report = (node, what) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push(`${name}:${line + 1} ${what}`);
  };
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isJsxText(node)) {
      const text = node.text.trim().replace(/\s+/g, ' ');
      if (LETTER.test(text)) report(node, `JSX text ${JSON.stringify(text)}`);
    } else if (ts.isJsxAttribute(node) && node.initializer) {
      const attribute = node.name.getText(source);
      if (ATTRIBUTES.has(attribute)) {
        let value = node.initializer;
        if (ts.isJsxExpression(value) && value.expression) value = value.expression;
        while (ts.isParenthesizedExpression(value)) value = value.expression;
        if ((ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) && LETTER.test(value.text))
          report(node, `${attribute}=${JSON.stringify(value.text)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (findings.length > 0) {
  for (const finding of findings) console.log(finding);
  console.log(
    `\n${findings.length} admin string(s) outside web/admin/src/strings.ts: move the wording there and refer to it (docs/admin.md).`,
  );
  process.exit(1);
}
console.log(`admin strings: no literal wording in the .tsx files of ${relative(cwd, dir) || '.'}`);
