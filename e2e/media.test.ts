import assert from 'node:assert/strict';
import sharp from 'sharp';
import { browse, e2eTest, ok, seedShop, startServer } from './harness.js';

/**
 * Product media in a browser (issue 37, item 2): the card and the product page load the image in
 * a size and format the browser picks from the srcset (AVIF or WebP, not the upload), the gallery
 * strip moves to an image when its small copy is chosen, at desktop and phone width.
 */

const cover = (hue: number) =>
  sharp({ create: { width: 1600, height: 1000, channels: 3, background: `hsl(${hue}, 60%, 45%)` } })
    .jpeg()
    .toBuffer();

e2eTest(
  'cards and the product gallery load sized AVIF or WebP, and the gallery moves to the image chosen',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server);
    const product = `/self/${shop.shopId}/v2/products/${shop.productId}`;
    ok(await server.api.upload(`${product}/thumbnail`, await cover(220), 'cover.jpg'));
    for (const hue of [20, 300]) ok(await server.api.upload(`${product}/images`, await cover(hue), 'view.jpg'));

    for (const size of [
      { label: 'desktop', viewport: { width: 1280, height: 900 } },
      { label: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    ]) {
      const { page, shot } = await browse(t, { label: size.label, viewport: size.viewport, isMobile: size.isMobile });
      await page.goto(`${shop.home}/`);
      const card = page.locator('.product-card img').first();
      await card.evaluate((img: HTMLImageElement) => img.decode());
      const cardSource = await card.evaluate((img: HTMLImageElement) => img.currentSrc);
      assert.match(cardSource, /\/w(320|640|960|1280)\.(avif|webp)$/, `${size.label}: the card loads a sized copy`);
      await shot('home');

      await page.getByRole('link', { name: 'Game Key' }).click();
      const strip = page.getByRole('list', { name: 'Images of Game Key' });
      await strip.waitFor();
      assert.equal(await strip.locator('li').count(), 3, 'the thumbnail and two gallery images');
      const main = strip.locator('img').first();
      await main.evaluate((img: HTMLImageElement) => img.decode());
      assert.match(await main.evaluate((img: HTMLImageElement) => img.currentSrc), /\/w\d+\.(avif|webp)$/);
      await page.getByRole('link', { name: 'Image 3 of 3' }).click();
      await page.waitForFunction(() => {
        const list = document.querySelector('.gallery');
        return list !== null && list.scrollLeft > 0;
      });
      await shot('product-gallery');
    }
  },
);
