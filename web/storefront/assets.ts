import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';

/**
 * The storefront's one stylesheet and one small script, read once at start and served under
 * names that carry a hash of their bytes, so browsers may keep them for a year: a new version is
 * a new name. The script only improves pages that already work without it.
 */
interface Asset {
  body: Buffer;
  type: string;
  url: string;
}

const FILES: Record<string, string> = {
  'storefront.css': 'text/css; charset=utf-8',
  'storefront.js': 'text/javascript; charset=utf-8',
};

const assets = new Map<string, Asset>();
for (const [name, type] of Object.entries(FILES)) {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 12);
  const dot = name.lastIndexOf('.');
  const url = `/assets/storefront/${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
  assets.set(url, { body, type, url });
}

/** The served URL of an asset, e.g. `assetUrl('storefront.css')`. */
export function assetUrl(name: keyof typeof FILES & string): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = [`/assets/storefront/${name.slice(0, dot)}.`, name.slice(dot)];
  for (const asset of assets.values()) if (asset.url.startsWith(stem) && asset.url.endsWith(ext)) return asset.url;
  throw new Error(`unknown storefront asset ${name}`);
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
};
