import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';

/**
 * The storefront's stylesheet and small script, and the proof-of-work challenge's widget (the
 * `altcha` package's build without inline workers, so the CSP keeps `script-src 'self'`), its
 * PBKDF2 worker and the few lines that register it: read once at start and served under names
 * that carry a hash of their bytes, so browsers may keep them for a year: a new version is a new
 * name. The storefront script only improves pages that already work without it; the challenge
 * needs script by nature (pages say so in a <noscript>). The service's icon is here too.
 */
interface Asset {
  body: Buffer;
  type: string;
  url: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const own = (name: string) => new URL(`./assets/${name}`, import.meta.url);
// The package's entry for `altcha/external` is dist/external/altcha.js; its siblings are beside it.
const widget = (path: string) => new URL(path, import.meta.resolve('altcha/external'));

const FILES = {
  'storefront.css': { type: CSS, from: own('storefront.css') },
  'storefront.js': { type: JS, from: own('storefront.js') },
  'challenge.js': { type: JS, from: own('challenge.js') },
  'favicon.svg': { type: 'image/svg+xml', from: own('favicon.svg') },
  'altcha.js': { type: JS, from: widget('./altcha.min.js') },
  'altcha.css': { type: CSS, from: widget('./altcha.css') },
  'altcha-pbkdf2.js': { type: JS, from: widget('../workers/pbkdf2.js') },
  // The widget's own German (its label, "verifying…"), registered before the widget reads it.
  'altcha-de.js': { type: JS, from: widget('../i18n/de.js') },
} as const;

const assets = new Map<string, Asset>();
const urlOf = new Map<string, string>();
for (const [name, { type, from }] of Object.entries(FILES)) {
  const body = readFileSync(from);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  const dot = name.lastIndexOf('.');
  const url = `/assets/storefront/${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
  assets.set(url, { body, type, url });
  urlOf.set(name, url);
}

/** The served URL of an asset, e.g. `assetUrl('storefront.css')`. */
export function assetUrl(name: keyof typeof FILES): string {
  return urlOf.get(name)!;
}

export const storefrontAssetRoutes: FastifyPluginAsync = async (app) => {
  app.get('/assets/storefront/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.url.split('?')[0]!);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });
  // The buy button any website can paste (assets/embed.js): at a fixed address, on every host.
  const embedScript = readFileSync(own('embed.js'));
  app.get('/embed.js', { schema: { hide: true } }, (_request, reply) =>
    reply
      .type(JS)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(embedScript),
  );
  // Browsers ask every host for `/favicon.ico` when a page names no icon (the API's JSON pages,
  // the API reference); shops and the operator's pages name theirs.
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').redirect(assetUrl('favicon.svg'), 301),
  );
};
