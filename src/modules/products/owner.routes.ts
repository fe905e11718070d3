import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { receiveImage, uploadRouteSchema, uploadUrl } from '../../http/uploads.js';
import { CursorPage, Deleted, ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import * as bulk from './bulk.service.js';
import * as images from './images.service.js';
import * as restock from './restock.service.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Products'];

export const productOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const saving = { allowPrivate: app.config.webhooks.allowPrivate, vpn: app.vpnRanges };

  const bulkSchema = <B extends TSchema>(summary: string, body: B) => ({
    tags,
    summary: `${summary} of many products`,
    description: 'All or nothing: any id that is not a product of this shop makes the call a 404 that changes nothing.',
    params: ShopParams,
    body,
    response: ownerResponses(schema.BulkResult),
  });

  app.post('/:shopId/v2/products', {
    schema: {
      tags,
      summary: 'Create a product',
      params: ShopParams,
      body: schema.NewProduct,
      response: ownerResponses(schema.Product, [409, 422]),
    },
    handler: async (request) => ok(await service.createProduct(ctx, currentShop(request), request.body, saving)),
  });

  app.get('/:shopId/v2/products', {
    schema: {
      tags,
      summary: 'List products with their variants (serial contents omitted)',
      params: ShopParams,
      querystring: schema.ProductListQuery,
      response: ownerResponses(CursorPage(schema.ProductListItem)),
    },
    handler: async (request) => ok(await service.listProducts(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/v2/products/:productId', {
    schema: {
      tags,
      summary: 'Get one product, serial contents included',
      params: schema.ProductParams,
      response: ownerResponses(schema.Product),
    },
    handler: async (request) => ok(await service.getProduct(ctx, currentShop(request), request.params.productId)),
  });

  app.put('/:shopId/v2/products/:productId', {
    schema: {
      tags,
      summary: 'Replace a product',
      description:
        'Full update. A variant with `id` is edited, one without is added, one left out is removed (orders keep it). ' +
        'Omitted `asSerials.serials` or `stock` keep the current stock; an omitted `path` keeps the current path.',
      params: schema.ProductParams,
      body: schema.ProductUpdate,
      response: ownerResponses(schema.Product, [409, 422]),
    },
    handler: async (request) =>
      ok(await service.updateProduct(ctx, currentShop(request), request.params.productId, request.body, saving)),
  });

  app.post('/:shopId/v2/products/:productId/variants/:variantId/serials', {
    schema: {
      tags,
      summary: 'Add serials to a serials variant',
      description:
        "Appends keys to the variant's stock without sending the whole product. `serials` is an array or one text split on " +
        '`delimiter` (default a newline), as in `asSerials`; each serial is trimmed and blank ones are skipped; at most 10,000 a call ' +
        '(400 beyond). Answers which were `added`, which were `duplicates` (the variant already holds them — in stock or reserved ' +
        'by a pending invoice — or the request repeats them) and which were `alreadySold` (delivered before: a serial is delivered ' +
        "at most once, ever), and the variant's `stock` after the call. All in one transaction: two restocks at once never add a " +
        'serial twice. A variant that is not of the serials type is a 409; an unknown or removed product or variant a 404. The ' +
        "shop's cached storefront pages are dropped.",
      params: schema.VariantParams,
      body: schema.RestockBody,
      response: ownerResponses(schema.RestockResult, [409]),
    },
    handler: async (request) => {
      const { productId, variantId } = request.params;
      return ok(await restock.restockSerials(ctx, currentShop(request).id, productId, variantId, request.body));
    },
  });

  for (const [path, column, summary] of [
    ['/:shopId/v2/products/:productId/thumbnail', 'thumbnail', 'Upload the product thumbnail'],
    ['/:shopId/v2/products/:productId/seo/image', 'seo_image', 'Upload the product SEO image'],
  ] as const) {
    app.post(path, {
      schema: { tags, summary, params: schema.ProductParams, ...uploadRouteSchema() },
      handler: async (request) => {
        const name = await service.setProductImage(
          ctx,
          app.storage,
          currentShop(request),
          request.params.productId,
          column,
          () => receiveImage(request),
        );
        return ok({ url: uploadUrl(name) });
      },
    });
  }

  const galleryNote = `The gallery: images besides the thumbnail, shown on the product's storefront page in this order, at most ${images.MAX_GALLERY_IMAGES}.`;
  app.get('/:shopId/v2/products/:productId/images', {
    schema: {
      tags,
      summary: "List the product's gallery",
      description: galleryNote,
      params: schema.ProductParams,
      response: ownerResponses(Type.Array(schema.ProductImage)),
    },
    handler: async (request) => ok(await images.listGallery(ctx, currentShop(request), request.params.productId)),
  });
  app.post('/:shopId/v2/products/:productId/images', {
    schema: {
      tags,
      summary: 'Add an image to the gallery',
      params: schema.ProductParams,
      ...uploadRouteSchema(),
      description: `${galleryNote} The image goes last, without a description (set it with PUT). A full gallery: 409. ${uploadRouteSchema().description}`,
      response: ownerResponses(schema.ProductImage, [409, 413, 415]),
    },
    handler: async (request) =>
      ok(
        await images.addGalleryImage(ctx, app.storage, currentShop(request), request.params.productId, () =>
          receiveImage(request),
        ),
      ),
  });
  app.put('/:shopId/v2/products/:productId/images', {
    schema: {
      tags,
      summary: 'Order the gallery and describe its images',
      description: `${galleryNote} The images listed come first, in the order given, each with its description; the others follow in their order. An id not of this gallery, or listed twice, is a 400 naming it.`,
      params: schema.ProductParams,
      body: schema.ImageOrder,
      response: ownerResponses(Type.Array(schema.ProductImage)),
    },
    handler: async (request) =>
      ok(await images.arrangeGallery(ctx, currentShop(request), request.params.productId, request.body)),
  });
  app.delete('/:shopId/v2/products/:productId/images/:imageId', {
    schema: {
      tags,
      summary: 'Remove an image from the gallery',
      description: 'The image file is deleted with it; the others keep their order.',
      params: schema.ImageParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) => {
      const { productId, imageId } = request.params;
      await images.removeGalleryImage(ctx, app.storage, currentShop(request), productId, imageId);
      return ok({ id: imageId, deleted: true as const });
    },
  });

  app.put('/:shopId/v2/products/bulk/update/payment-methods', {
    schema: bulkSchema('Allow or remove gateways', schema.BulkBodies.paymentMethods),
    handler: async (request) => ok(await bulk.setPaymentMethods(ctx, currentShop(request).id, request.body)),
  });

  app.get('/:shopId/products', {
    schema: {
      tags,
      summary: 'List product summaries',
      description: 'Rows of id, title, path, visibility flags, lowest price, total stock and units sold.',
      params: ShopParams,
      querystring: schema.ProductListQuery,
      response: ownerResponses(CursorPage(schema.ProductSummary)),
    },
    handler: async (request) => ok(await service.listProductSummaries(ctx, currentShop(request), request.query)),
  });

  app.delete('/:shopId/products/:productId', {
    schema: {
      tags,
      summary: 'Delete a product (orders keep their copy)',
      params: schema.ProductParams,
      response: ownerResponses(Deleted),
    },
    handler: async (request) => {
      await service.deleteProduct(ctx, app.storage, currentShop(request), request.params.productId);
      return ok({ id: request.params.productId, deleted: true as const });
    },
  });

  app.put('/:shopId/products/bulk/update/custom-fields', {
    schema: bulkSchema('Set the custom fields of every variant', schema.BulkBodies.customFields),
    handler: async (request) => ok(await bulk.setCustomFields(ctx, currentShop(request).id, request.body)),
  });

  app.put('/:shopId/products/bulk/update/customer-note', {
    schema: bulkSchema('Set the customer note', schema.BulkBodies.customerNote),
    handler: async (request) => ok(await bulk.setCustomerNote(ctx, currentShop(request).id, request.body)),
  });

  app.put('/:shopId/products/bulk/update/visibility', {
    schema: bulkSchema('Set unlisted, private or onHold', schema.BulkBodies.visibility),
    handler: async (request) => ok(await bulk.setVisibility(ctx, currentShop(request).id, request.body)),
  });

  app.put('/:shopId/products/bulk/update/chat-integration', {
    schema: bulkSchema('Set the chat integration', schema.BulkBodies.chatIntegration),
    handler: async (request) => ok(await bulk.setChatIntegration(ctx, currentShop(request).id, request.body)),
  });

  app.post('/:shopId/products/bulk/delete', {
    schema: bulkSchema('Delete', schema.BulkBodies.delete),
    handler: async (request) => ok(await bulk.deleteMany(ctx, app.storage, currentShop(request).id, request.body)),
  });
};
