import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { Deleted, ok, ownerResponses, Page, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Announcements'];

const rules =
  'title 1–200 characters (trimmed), shortDescription ≤ 500, description ≤ 50,000, buttonText ≤ 64, buttonLink an https URL. ' +
  '`private` hides the announcement from every public page; `unlisted` keeps it off the main page but reachable by its path. ' +
  'Omitted booleans are false; omitted, null or empty optional texts are cleared.';

export const announcementOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/:shopId/announcements', {
    schema: {
      tags,
      summary: 'List announcements',
      description: 'Newest first. `searchString` matches title, path and short description.',
      params: ShopParams,
      querystring: schema.AnnouncementListQuery,
      response: ownerResponses(Page(schema.Announcement)),
    },
    handler: async (request) => ok(await service.listAnnouncements(ctx, currentShop(request), request.query)),
  });

  app.post('/:shopId/announcements', {
    schema: {
      tags,
      summary: 'Create an announcement',
      description: `${rules} The path is generated from the title, made unique in the shop with a numeric suffix (\`news\`, \`news-2\`), unless \`path\` is given (409 when taken).`,
      params: ShopParams,
      body: schema.AnnouncementInput,
      response: ownerResponses(schema.Announcement, [409]),
    },
    handler: async (request) => ok(await service.createAnnouncement(ctx, currentShop(request), request.body)),
  });

  app.put('/:shopId/announcements/:announcementId', {
    schema: {
      tags,
      summary: 'Replace an announcement',
      description: `Full update. ${rules} The path is kept, also when the title changes, unless a new \`path\` is given (409 when another announcement has it).`,
      params: schema.AnnouncementParams,
      body: schema.AnnouncementInput,
      response: ownerResponses(schema.Announcement, [409]),
    },
    handler: async (request) =>
      ok(await service.updateAnnouncement(ctx, currentShop(request), request.params.announcementId, request.body)),
  });

  app.delete('/:shopId/announcements/:announcementId', {
    schema: {
      tags,
      summary: 'Delete an announcement',
      description: 'Its path becomes free again.',
      params: schema.AnnouncementParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) =>
      ok(await service.deleteAnnouncement(ctx, currentShop(request), request.params.announcementId)),
  });
};
