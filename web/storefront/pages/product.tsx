import type { MessageKey } from '../../../src/i18n/lang.js';
import { MAX_ANSWER_LENGTH } from '../../../src/modules/products/index.js';
import type { listingPage } from '../../../src/modules/storefront/index.js';
import { CARD_SIZES, FeedbackList, Picture, Placeholder, Rating } from '../components.js';
import { gatewayLabel, useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { productJsonLd } from '../seo.js';
import { flowHref, href, type Site } from '../site.js';
import { CustomFieldInput } from './custom-field.js';

type ListingPageData = Awaited<ReturnType<typeof listingPage>>;
type Product = NonNullable<ListingPageData['listing']['product']>;
type Variant = Product['variants'][number];

/**
 * The form on a product page opens the checkout page with a POST to `/checkout/start`, which only
 * renders that page (it changes nothing, so it needs no CSRF token, which a cached page cannot
 * carry): custom-field answers (an account name, sometimes a credential) stay out of URLs, logs
 * and browser history. Its names are those of the checkout page (which also takes them as a
 * query, for links):
 * `product, variant, quantity, coupon, ref` and `field.<custom field id>` per custom field.
 */
export const checkoutFieldName = (id: string) => `field.${id}`;

function StockText({ variant, hideStock }: { variant: Variant; hideStock: boolean }) {
  const { t } = useLang();
  if (!variant.inStock) return <>{t('stock.soldOut')}</>;
  if (hideStock || variant.stock === undefined || variant.stock === null) return <>{t('stock.in')}</>;
  return <>{t('stock.count', { count: variant.stock })}</>;
}

/** Why this variant cannot be bought now (the message saying so), or null when it can. */
export function unavailableReason(product: Product, variant: Variant, onHold: boolean): MessageKey | null {
  if (onHold) return 'product.notTaking';
  if (product.onHold) return 'product.notAvailable';
  if (!variant.inStock) return 'product.soldOut';
  if (variant.gateways.length === 0) return 'product.noPayment';
  return null;
}

/** How many of an option one order takes, when that is not "one or more". */
function AmountRange({ variant }: { variant: Variant }) {
  const { t } = useLang();
  const min = variant.minAmount;
  const max = variant.maxAmount;
  if (min <= 1 && max === null) return null;
  const text =
    max === null
      ? t('product.buyAtLeast', { min })
      : max === min
        ? t('product.buyExactly', { min })
        : t('product.buyBetween', { min, max });
  return <span class="muted small"> {text}</span>;
}

/**
 * The custom fields of the order. When every option that can be bought asks the same ones (the
 * usual case: one option), they are asked here and carried to the checkout page; when options
 * ask different ones, the checkout page asks those of the option chosen, and this says so.
 */
function OrderDetails({ buyable }: { buyable: Variant[] }) {
  const { t } = useLang();
  const asked = buyable.filter((v) => v.customFields.length > 0);
  if (asked.length === 0) return null;
  const same = buyable.every((v) => JSON.stringify(v.customFields) === JSON.stringify(buyable[0]!.customFields));
  if (!same) return <p class="muted small">{t('product.detailsNext')}</p>;
  return (
    <fieldset>
      <legend>{t('product.details')}</legend>
      {buyable[0]!.customFields.map((f) => (
        <CustomFieldInput key={f.id} field={f} name={checkoutFieldName(f.id)} value="" maxLength={MAX_ANSWER_LENGTH} />
      ))}
    </fieldset>
  );
}

const MEDIA_SIZES = '(max-width: 720px) 100vw, 480px';

/**
 * The product's images: the thumbnail, then the gallery, side by side in a strip that scrolls and
 * snaps one image at a time (a swipe on a phone, the keyboard once the strip has focus), with a row
 * of small copies below that jump to each (plain links to the image's anchor: no script needed).
 */
function Gallery({ product }: { product: Product }) {
  const { t } = useLang();
  const media = [...(product.thumbnailUrl ? [{ url: product.thumbnailUrl, alt: '' }] : []), ...product.images];
  if (media.length === 0) return null;
  if (media.length === 1)
    return (
      <div class="product-media">
        <Picture src={media[0]!.url} alt={media[0]!.alt} sizes={MEDIA_SIZES} eager />
      </div>
    );
  const count = media.length;
  return (
    <div class="product-media">
      {/* Focusable, so the keyboard can scroll it; named for what it holds. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by the keyboard this way (WCAG 2.1.1) */}
      <ul class="gallery" tabIndex={0} aria-label={t('product.gallery', { title: product.title })}>
        {media.map((m, i) => (
          <li key={m.url} id={`image-${i + 1}`}>
            <Picture src={m.url} alt={m.alt} sizes={MEDIA_SIZES} eager={i === 0} />
          </li>
        ))}
      </ul>
      <nav class="gallery-thumbs" aria-label={t('product.galleryNav')}>
        {media.map((m, i) => (
          <a
            key={m.url}
            class="gallery-thumb"
            href={`#image-${i + 1}`}
            aria-label={t('product.showImage', { n: i + 1, count })}
          >
            <Picture src={m.url} alt="" sizes="80px" />
          </a>
        ))}
      </nav>
    </div>
  );
}

function ProductView({
  site,
  data,
  product,
  ref,
}: {
  site: Site;
  data: ListingPageData;
  product: Product;
  ref?: string;
}) {
  const lang = useLang();
  const { t, money } = lang;
  const details = data.mainDetails;
  const d = details.design;
  const buyable = product.variants.filter((v) => unavailableReason(product, v, details.onHold) === null);
  const first = buyable[0] ?? product.variants[0];
  const single = product.variants.length === 1;
  return (
    <article class={product.thumbnailUrl || product.images.length > 0 ? 'product' : 'product no-media'}>
      <Gallery product={product} />
      <div class="product-body">
        <h1 class={d.centerProductTitle ? 'center' : undefined}>{product.title}</h1>
        {d.disableReviews ? null : (
          <p>
            <Rating rating={data.statistics.rating} count={data.statistics.totalFeedbacks} />
            {d.disableProductsSold ? null : (
              <span class="muted"> · {t('home.sold', { count: product.soldCount })}</span>
            )}
          </p>
        )}
        {product.description ? <div class="text description">{product.description}</div> : null}

        <form method="post" action={flowHref(site, '/checkout/start')} class="buy">
          <input type="hidden" name="product" value={String(product.id)} />
          <fieldset>
            <legend>{single ? t('product.price') : t('product.chooseOption')}</legend>
            {product.variants.map((v) => {
              const reason = unavailableReason(product, v, details.onHold);
              return (
                <label key={v.id} class={reason ? 'variant unavailable' : 'variant'}>
                  <input
                    type="radio"
                    name="variant"
                    value={String(v.id)}
                    checked={buyable.length > 0 && v.id === first?.id}
                    disabled={reason !== null}
                    required
                  />
                  <span class="variant-title">{v.title}</span>
                  <span class="price">{money(v.priceDetails.amount, v.priceDetails.currency)}</span>
                  <span class={v.inStock ? 'badge in' : 'badge out'}>
                    <StockText variant={v} hideStock={d.hideProductStock} />
                  </span>
                  <AmountRange variant={v} />
                  {v.description ? <span class="muted small text"> {v.description}</span> : null}
                  {reason && v.inStock ? <span class="muted small"> {t(reason)}</span> : null}
                  {v.gateways.length > 0 ? (
                    <span class="muted small">
                      {' '}
                      {t('product.payWith', {
                        methods: lang.list(v.gateways.map((g) => gatewayLabel(lang, g.gateway))),
                      })}
                    </span>
                  ) : null}
                  {v.warranty ? (
                    <span class="muted small"> {t('product.warranty', { text: v.warranty.text })}</span>
                  ) : null}
                </label>
              );
            })}
          </fieldset>
          {first && buyable.length > 0 ? (
            <div class="field">
              <label for="quantity">{t('product.quantity')}</label>
              <input
                id="quantity"
                name="quantity"
                type="number"
                inputMode="numeric"
                min={first.minAmount}
                max={first.maxAmount ?? undefined}
                value={String(first.minAmount)}
                required
              />
            </div>
          ) : null}
          {buyable.length > 0 ? (
            <>
              <OrderDetails buyable={buyable} />
              <div class="field">
                <label for="coupon">{t('product.coupon')}</label>
                <input id="coupon" name="coupon" type="text" maxLength={64} autoComplete="off" />
              </div>
              <div class="field">
                <label for="ref">{t('product.referral')}</label>
                <input id="ref" name="ref" type="text" maxLength={64} autoComplete="off" value={ref ?? ''} />
              </div>
              <div class="actions">
                <button type="submit" class="button primary">
                  {t('product.buyNow')}
                </button>
                {/* Not in another site's frame: its buy button sells one product. No answers are kept in the cart: the checkout asks. */}
                {site.embed ? null : (
                  <button type="submit" class="button" formAction={href(site, '/cart/add')} formNoValidate>
                    {t('cart.add')}
                  </button>
                )}
              </div>
            </>
          ) : (
            <p class="notice warning" role="status">
              {t((first && unavailableReason(product, first, details.onHold)) || 'product.nothing')}
            </p>
          )}
        </form>
      </div>
    </article>
  );
}

export function ProductPage({ site, data, ref }: { site: Site; data: ListingPageData; ref?: string | undefined }) {
  const { t, money } = useLang();
  const { listing } = data;
  const details = data.mainDetails;
  const product = listing.product;
  const group = listing.group;
  const title = product?.title ?? group?.title ?? '';
  const seo = product?.seo;
  return (
    <Layout
      site={site}
      details={details}
      title={seo?.metaTitle ?? title}
      description={seo?.metaDescription ?? product?.shortDescription ?? group?.description ?? null}
      image={seo?.imageUrl ?? product?.thumbnailUrl ?? product?.images[0]?.url ?? group?.thumbnailUrl ?? null}
      path={`/products/${encodeURIComponent(listing.path)}`}
      ogType={product ? 'product' : 'website'}
      jsonLd={
        product
          ? productJsonLd(site, details, product, {
              rating: data.statistics.rating,
              count: data.statistics.totalFeedbacks,
            })
          : undefined
      }
    >
      {site.embed ? null : (
        <p class="breadcrumbs">
          <a href={href(site, '/')}>{t('product.allProducts')}</a>
        </p>
      )}
      {product ? <ProductView site={site} data={data} product={product} ref={ref} /> : null}
      {group ? (
        <section>
          <h1>{group.title}</h1>
          {group.description ? <p class="text">{group.description}</p> : null}
          <ul class="grid">
            {group.products.map((p) => {
              const cheapest = Math.min(...p.variants.map((v) => v.priceDetails.amount));
              const inStock = p.variants.some((v) => v.inStock);
              return (
                <li key={p.id} class="card product-card">
                  <a href={flowHref(site, `/products/${encodeURIComponent(p.path)}`)}>
                    {p.thumbnailUrl ? (
                      <Picture src={p.thumbnailUrl} alt="" sizes={CARD_SIZES} />
                    ) : (
                      <Placeholder title={p.title} />
                    )}
                    <h2 class="h3">{p.title}</h2>
                  </a>
                  {p.variants.length > 0 ? (
                    <p class="price">
                      {t('home.from', { price: money(cheapest, p.variants[0]!.priceDetails.currency) })}
                    </p>
                  ) : null}
                  <p>
                    <span class={inStock ? 'badge in' : 'badge out'}>
                      {inStock ? t('stock.in') : t('stock.soldOut')}
                    </span>
                  </p>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
      {details.design.disableReviews ? null : (
        <section aria-labelledby="reviews">
          <h2 id="reviews">{t('layout.reviews')}</h2>
          <FeedbackList feedbacks={data.feedbacks} />
        </section>
      )}
    </Layout>
  );
}
