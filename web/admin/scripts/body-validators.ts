import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { _, Ajv } from 'ajv';
import ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import ajvErrors from 'ajv-errors';
import ajvFormats from 'ajv-formats';

/**
 * Writes the admin forms' validators: one for the JSON body of every owner operation
 * (`/self/…`) of the OpenAPI document, checked with the server's own rules (ajv with its formats
 * and `errorMessage` sentences, no coercion, every problem at once, src/http/validation.ts).
 *
 * They are compiled here, at build time, into plain functions (ajv's standalone code): the
 * admin's Content-Security-Policy (`script-src 'self'`, web/admin/serve.ts) forbids the
 * `new Function` that compiling a schema in the browser needs. Each distinct schema is a module
 * of its own, loaded by the form that uses it (`bodyValidators[operation]()`), so a screen
 * carries only its own; the product body's alone is about 90 kB.
 *
 * Out, in `src/api/generated/` (not committed, see web/admin/.gitignore):
 *   body-validators.js     the operations, each with the import of its module
 *   body-validators.d.ts   their names as a type (a form naming another operation fails the type check)
 *   bodies/<operation>.js  the validators
 */

type JsonSchema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}

const METHODS = ['post', 'put', 'patch', 'delete'];

/** What only documents a schema (and ajv ignores): left out, so the code carries less. */
function withoutDocumentation(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDocumentation);
  if (typeof schema !== 'object' || schema === null) return schema;
  const kept: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' || key === 'examples' || key === 'title' || key.startsWith('x-')) continue;
    // Under `properties` the keys are field names, whatever they are called.
    kept[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, s]) => [name, withoutDocumentation(s)]))
        : withoutDocumentation(value);
  }
  return kept;
}

/** The owner operations with a JSON body: `"PUT /self/{shopId}/faqs/{faqId}"` → its body schema. */
export function ownerJsonBodies(document: OpenApiDocument): Map<string, JsonSchema> {
  const bodies = new Map<string, JsonSchema>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/self')) continue;
    for (const method of METHODS) {
      const schema = item[method]?.requestBody?.content?.['application/json']?.schema;
      if (schema) bodies.set(`${method.toUpperCase()} ${path}`, withoutDocumentation(schema) as JsonSchema);
    }
  }
  return bodies;
}

/** ajv as the server validates bodies (src/http/validation.ts), emitting ES modules instead of compiling. */
function standaloneAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    multipleOfPrecision: 9,
    // The form's body is sent as validated: no defaults filled in, nothing removed.
    useDefaults: false,
    code: { source: true, esm: true, lines: false, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  (ajvFormats as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  (ajvErrors as unknown as { default: (ajv: Ajv) => Ajv }).default(ajv);
  return ajv;
}

// CommonJS with a default export: under NodeNext the function sits on .default (as in src/http/validation.ts).
const standaloneCode = (standaloneModule as unknown as { default: (ajv: Ajv, validate: unknown) => string }).default;
const ucs2length = (ucs2lengthModule as unknown as { default: (text: string) => number }).default;

/**
 * ajv's standalone code reaches its runtime helpers with `require("<module>").<name>`, even as an
 * ES module. Each known one is replaced: the Unicode length of a string by a copy of ajv's own
 * function (its `.default` would mean another thing to Vite than to Node), the formats by an
 * import of ajv-formats. An unknown one stops the build rather than fail in a browser.
 */
const runtimeHelpers: Record<string, { name: string; code: string }> = {
  'ajv/dist/runtime/ucs2length.default': { name: 'ucs2length', code: `const ucs2length = ${String(ucs2length)};` },
  'ajv-formats/dist/formats.fullFormats': {
    name: 'fullFormats',
    code: `import { fullFormats } from 'ajv-formats/dist/formats.js';`,
  },
};

function asEsModule(code: string): string {
  const used = new Set<string>();
  const body = code.replace(/require\("([^"]+)"\)\.(\w+)/g, (call, module: string, name: string) => {
    const helper = runtimeHelpers[`${module}.${name}`];
    if (!helper) throw new Error(`body-validators: ajv's code needs ${call}, which is not provided for`);
    used.add(helper.code);
    return helper.name;
  });
  if (body.includes('require(')) throw new Error("body-validators: ajv's code has a require() not provided for");
  const imports = [...used].filter((c) => c.startsWith('import'));
  const helpers = [...used].filter((c) => !c.startsWith('import'));
  return `// Generated by web/admin/scripts/body-validators.ts; do not edit.\n${[...imports, ...helpers, body].join('\n')}\n`;
}

/** `PUT /self/{shopId}/faqs/{faqId}` → `put-self-shopid-faqs-faqid`. */
const fileNameOf = (operation: string) =>
  operation
    .toLowerCase()
    .replace(/[{}]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function writeBodyValidators(document: OpenApiDocument, outDir: URL): number {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(new URL('bodies/', outDir), { recursive: true });
  const ajv = standaloneAjv();
  const bodies = ownerJsonBodies(document);
  // Operations with the same body (a resource's POST and PUT, mostly) share one module.
  const files = new Map<string, string>();
  const entries: string[] = [];
  for (const [operation, schema] of bodies) {
    const key = JSON.stringify(schema);
    let file = files.get(key);
    if (!file) {
      file = `${fileNameOf(operation)}.js`;
      files.set(key, file);
      const code = standaloneCode(ajv, ajv.compile(schema));
      writeFileSync(new URL(`bodies/${file}`, outDir), asEsModule(code));
    }
    entries.push(`  ${JSON.stringify(operation)}: () => import(${JSON.stringify(`./bodies/${file}`)}),`);
  }
  const header = '// Generated by web/admin/scripts/body-validators.ts from /openapi.json; do not edit.\n';
  writeFileSync(
    new URL('body-validators.js', outDir),
    `${header}/** Every owner operation with a JSON body: its validator, loaded when first asked for. */\nexport const bodyValidators = {\n${entries.join('\n')}\n};\n`,
  );
  writeFileSync(
    new URL('body-validators.d.ts', outDir),
    `${header}import type { ErrorObject } from 'ajv';

/** A body validator: true, or false with \`errors\` (ajv's, with the schema's \`errorMessage\` sentences). */
export interface BodyValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The owner operations with a JSON body, as \`"<METHOD> <path>"\`. */
export type BodyOperation =
${[...bodies.keys()].map((op) => `  | ${JSON.stringify(op)}`).join('\n')};

export declare const bodyValidators: Readonly<Record<BodyOperation, () => Promise<{ validate: BodyValidator }>>>;
`,
  );
  return files.size;
}
