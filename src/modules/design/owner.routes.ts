import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from '../../domain/context.js';
import { currentShop } from '../../http/auth.js';
import { type ImageKind, receiveImage, uploadRouteSchema, uploadUrl } from '../../http/uploads.js';
import { ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import type { ImageSlot } from './design.table.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Storefront design'];

/** Both families are one stored design: said once, in every route's description. */
const oneDesign = (paths: string[]) =>
  `\`settings/design/*\` and \`customization/*\` are two path families over one stored design: a write through either ` +
  `shows in both, in \`GET customization\` and in \`GET settings\` (\`design\`).` +
  (paths.length > 1
    ? ` This call is also at ${paths.map((p) => `\`${p.replace('/:shopId/', '')}\``).join(' and ')}.`
    : '');

interface SectionRoute<B extends TSchema> {
  paths: string[];
  summary: string;
  description: string;
  body: B;
  apply(ctx: Context, shopId: number, body: Static<B>): Promise<schema.Design>;
}

const section = <B extends TSchema>(s: SectionRoute<B>) => s as unknown as SectionRoute<TSchema>;

/** PUT routes: each changes one part of the design and answers the whole design. Full paths, so each can be found by grepping it. */
const sections = [
  section({
    paths: ['/:shopId/settings/design', '/:shopId/customization/design'],
    summary: 'Update the colours and display flags',
    description: 'Colours are hex `#rrggbb` (stored lower-case); `fontLink` is an https URL or null.',
    body: schema.DesignFlagsBody,
    apply: service.updateDesignFlags,
  }),
  section({
    paths: ['/:shopId/customization/widgets'],
    summary: 'Update the widget keys',
    description: 'Crisp, Google Analytics, Hotjar and Intercom ids; null or empty clears one.',
    body: schema.WidgetsBody,
    apply: service.updateWidgets,
  }),
  section({
    paths: ['/:shopId/settings/design/storefront', '/:shopId/customization/storefront'],
    summary: 'Update the storefront texts and switches',
    description:
      'Title, description, button text and the switches that hide them. `imageUrl` is set by uploading the storefront image.',
    body: schema.StorefrontBody,
    apply: service.updateStorefront,
  }),
  section({
    paths: ['/:shopId/customization/seo'],
    summary: 'Update the SEO title and description',
    description:
      '`metaTitle` up to 70 characters, `metaDescription` up to 160; null or empty clears. The image and favicon are uploads.',
    body: schema.SeoBody,
    apply: service.updateSeo,
  }),
  section({
    paths: ['/:shopId/settings/design/links', '/:shopId/customization/links'],
    summary: 'Replace the social links',
    description:
      'The list replaces the stored one (0–20 links). Each link is an https URL, except `email`: an e-mail address or a `mailto:` link.',
    body: schema.LinksBody,
    apply: service.setSocialLinks,
  }),
];

/** POST upload routes: each sets one image of the design; the previous file is removed. Full paths, so each can be found by grepping it. */
const images: { paths: string[]; slot: ImageSlot; kind: ImageKind; summary: string; field: string }[] = [
  {
    paths: ['/:shopId/customization/logo', '/:shopId/settings/design/logo'],
    slot: 'logo',
    kind: 'image',
    summary: 'Upload the logo',
    field: 'logoUrl',
  },
  {
    paths: ['/:shopId/customization/storefront/background', '/:shopId/settings/design/storefront/logo'],
    slot: 'storefrontImage',
    kind: 'image',
    summary: 'Upload the storefront image',
    field: 'storefront.imageUrl',
  },
  {
    paths: ['/:shopId/customization/seo/image'],
    slot: 'seoImage',
    kind: 'image',
    summary: 'Upload the SEO image',
    field: 'seo.imageUrl',
  },
  {
    paths: ['/:shopId/customization/seo/favicon'],
    slot: 'favicon',
    kind: 'favicon',
    summary: 'Upload the favicon',
    field: 'seo.faviconUrl',
  },
];

export const designOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/customization', {
    schema: {
      tags,
      summary: 'Read the storefront design',
      description: `The whole design, the same object as \`design\` in \`GET settings\`. ${oneDesign([])}`,
      params: ShopParams,
      response: ownerResponses(schema.Design),
    },
    handler: async (request) => ok(await service.getDesign(ctx.db, currentShop(request).id)),
  });

  for (const s of sections) {
    for (const path of s.paths) {
      app.put(path, {
        schema: {
          tags,
          summary: s.summary,
          description: `${s.description} Omitted fields keep their value; answers the whole design. ${oneDesign(s.paths)}`,
          params: ShopParams,
          body: s.body,
          response: ownerResponses(schema.Design),
        },
        handler: async (request) => ok(await s.apply(ctx, currentShop(request).id, request.body)),
      });
    }
  }

  for (const i of images) {
    const upload = uploadRouteSchema(i.kind);
    for (const path of i.paths) {
      app.post(path, {
        schema: {
          tags,
          summary: i.summary,
          params: ShopParams,
          ...upload,
          description: `Sets \`${i.field}\`; the previous image is removed. ${oneDesign(i.paths)}\n\n${upload.description}`,
        },
        handler: async (request) => {
          const name = await service.setDesignImage(ctx, app.storage, currentShop(request).id, i.slot, () =>
            receiveImage(request, i.kind),
          );
          return ok({ url: uploadUrl(name) });
        },
      });
    }
  }
};
