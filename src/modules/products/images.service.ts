import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import type { FileStorage } from '../../storage/file-storage.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import * as repo from './repository.js';
import type { ImageOrder } from './schema.js';
import { requireProduct } from './service.js';
import { type ProductImageView, toProductImage } from './views.js';

/**
 * A product's gallery: images besides its thumbnail, shown on its storefront page in the owner's
 * order, each with its description (`alt`). Files are stored and removed as the thumbnail's are
 * (src/http/uploads.ts, src/storage/file-storage.ts); a deleted product takes its gallery along.
 */

/** How many images a gallery holds. */
export const MAX_GALLERY_IMAGES = 12;

export async function listGallery(ctx: Context, shop: ShopRow, productId: number): Promise<ProductImageView[]> {
  await requireProduct(ctx.db, shop.id, productId);
  return (await repo.listProductImages(ctx.db, shop.id, [productId])).map(toProductImage);
}

/**
 * Adds an image at the end of the gallery: the product is checked first (404 before any upload
 * is read), the file stored, then its row written with the shop locked, so parallel uploads never
 * take a gallery past MAX_GALLERY_IMAGES (409; the stored file is removed again).
 */
export async function addGalleryImage(
  ctx: Context,
  storage: FileStorage,
  shop: ShopRow,
  productId: number,
  receive: () => Promise<string>,
): Promise<ProductImageView> {
  await requireProduct(ctx.db, shop.id, productId);
  const name = await receive();
  try {
    return await writeTransaction(ctx, async (tx) => {
      await lockShop(tx.db, shop.id);
      await requireProduct(tx.db, shop.id, productId);
      const images = await repo.listProductImages(tx.db, shop.id, [productId]);
      if (images.length >= MAX_GALLERY_IMAGES)
        throw new ConflictError(`A gallery holds at most ${MAX_GALLERY_IMAGES} images; remove one first.`, [
          `images: at most ${MAX_GALLERY_IMAGES}`,
        ]);
      const row = await repo.insertProductImage(tx.db, {
        shop_id: shop.id,
        product_id: productId,
        name,
        position: Math.max(-1, ...images.map((i) => i.position)) + 1,
        created_at: ctx.clock.now(),
      });
      return toProductImage(row);
    });
  } catch (err) {
    await storage.remove(name);
    throw err;
  }
}

/** Removes an image of the gallery; its file goes once the row is gone. */
export async function removeGalleryImage(
  ctx: Context,
  storage: FileStorage,
  shop: ShopRow,
  productId: number,
  imageId: number,
): Promise<void> {
  const removed = await writeTransaction(ctx, async (tx) => {
    await requireProduct(tx.db, shop.id, productId);
    return repo.deleteProductImage(tx.db, shop.id, productId, imageId);
  });
  if (!removed) throw new NotFoundError('Image');
  await storage.remove(removed.name);
}

/**
 * Puts the listed images first, in the order given, each with its description; the others follow
 * in the order they had, their descriptions kept. An id not of this gallery, or listed twice, is a
 * 400 naming it, and nothing changes.
 */
export async function arrangeGallery(
  ctx: Context,
  shop: ShopRow,
  productId: number,
  body: ImageOrder,
): Promise<ProductImageView[]> {
  return writeTransaction(ctx, async (tx) => {
    await lockShop(tx.db, shop.id);
    await requireProduct(tx.db, shop.id, productId);
    const current = await repo.listProductImages(tx.db, shop.id, [productId]);
    const known = new Set(current.map((i) => i.id));
    const given = body.images.map((i) => i.id);
    const problems: string[] = [];
    given.forEach((id, index) => {
      if (!known.has(id)) problems.push(`images[${index}].id: is not an image of this product`);
      else if (given.indexOf(id) !== index) problems.push(`images[${index}].id: is listed twice`);
    });
    if (problems.length > 0) throw new ValidationError(problems, "List images of this product's gallery, each once.");
    const order = [
      ...body.images.map((i) => ({ id: i.id, alt: i.alt.trim() })),
      ...current.filter((i) => !given.includes(i.id)).map((i) => ({ id: i.id, alt: i.alt })),
    ];
    for (const [position, image] of order.entries())
      await repo.updateProductImage(tx.db, shop.id, image.id, { position, alt: image.alt });
    return (await repo.listProductImages(tx.db, shop.id, [productId])).map(toProductImage);
  });
}
