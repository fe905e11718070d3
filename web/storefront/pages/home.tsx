import type { faqsPage, mainPage, PublicListing } from '../../../src/modules/storefront/index.js';
import { CARD_SIZES, FeedbackList, Picture, Placeholder, Rating } from '../components.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type Site } from '../site.js';

type MainPage = Awaited<ReturnType<typeof mainPage>>;
type Faqs = Awaited<ReturnType<typeof faqsPage>>['faqs'];

export interface HomeQuery {
  q?: string | undefined;
  category?: number | undefined;
}

type ListedProduct = NonNullable<PublicListing['product']>;

function matches(listing: PublicListing, q: string): boolean {
  const needle = q.toLowerCase();
  const titles = listing.product
    ? [listing.product.title, listing.product.shortDescription ?? '']
    : [listing.group!.title, ...listing.group!.products.map((p) => p.title)];
  return titles.some((t) => t.toLowerCase().includes(needle));
}

function StockLine({ product, page }: { product: ListedProduct; page: MainPage }) {
  const { t } = useLang();
  const d = page.mainDetails.design;
  if (product.onHold) return <span class="badge">{t('stock.unavailable')}</span>;
  if (!product.inStock) return <span class="badge out">{t('stock.soldOut')}</span>;
  if (d.hideProductStock || product.stock === undefined || product.stock === null)
    return <span class="badge in">{t('stock.in')}</span>;
  return <span class="badge in">{t('stock.count', { count: product.stock })}</span>;
}

function ProductCard({ site, product, page }: { site: Site; product: ListedProduct; page: MainPage }) {
  const { t, money } = useLang();
  const d = page.mainDetails.design;
  return (
    <li class="card product-card">
      <a href={href(site, `/products/${encodeURIComponent(product.path)}`)}>
        {product.thumbnailUrl ? (
          <Picture src={product.thumbnailUrl} alt="" sizes={CARD_SIZES} />
        ) : (
          <Placeholder title={product.title} />
        )}
        <h3>{product.title}</h3>
      </a>
      {product.shortDescription ? <p class="muted">{product.shortDescription}</p> : null}
      <p class="price">{t('home.from', { price: money(product.minPrice.amount, product.minPrice.currency) })}</p>
      <p class="meta">
        <StockLine product={product} page={page} />
        {d.disableProductsSold ? null : (
          <span class="muted small"> · {t('home.sold', { count: product.soldCount })}</span>
        )}
      </p>
    </li>
  );
}

export function HomePage({ site, page, faqs, query }: { site: Site; page: MainPage; faqs: Faqs; query: HomeQuery }) {
  const { t, money } = useLang();
  const details = page.mainDetails;
  const d = details.design;
  const q = query.q?.trim() ?? '';
  const category = query.category === undefined ? undefined : page.categories.find((c) => c.id === query.category);
  let listings = page.listings.filter((l) => {
    if (!d.hideOutOfStockProducts) return true;
    return l.product ? l.product.inStock : l.group!.products.some((p) => p.inStock);
  });
  if (category) {
    const order = new Map(category.listingIds.map((id, i) => [id, i]));
    listings = listings.filter((l) => order.has(l.id)).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }
  if (q) listings = listings.filter((l) => matches(l, q));
  const texts = page.shop;
  const stats = page.shop.statistics;
  return (
    <Layout site={site} details={details} path="/">
      <section
        class={page.shop.backgroundUrl ? 'hero with-image' : 'hero'}
        style={
          page.shop.backgroundUrl ? { backgroundImage: `url("${encodeURI(page.shop.backgroundUrl)}")` } : undefined
        }
      >
        {texts.disableTitle ? null : <h1>{texts.title ?? details.name}</h1>}
        {texts.disableDescription || !texts.description ? null : <p class="text">{texts.description}</p>}
        {texts.disableButton ? null : (
          <a class="button" href="#products">
            {texts.buttonText ?? t('home.seeProducts')}
          </a>
        )}
        <p class="stats">
          {d.disableReviews ? null : <Rating rating={stats.rating} count={stats.totalFeedbacks} />}
          {d.disableProductsSold ? null : <span> · {t('home.sold', { count: stats.totalProductsSold })}</span>}
        </p>
      </section>

      {details.paymentMethods.length === 0 && !details.onHold ? (
        <p class="notice warning" role="status">
          {t('home.noPayments')}
        </p>
      ) : null}

      {page.announcements.length > 0 ? (
        <section aria-labelledby="news">
          <h2 id="news">{t('home.news')}</h2>
          <ul class="announcements">
            {page.announcements.map((a) => (
              <li key={a.id} class="card">
                <h3>
                  <a href={href(site, `/announcements/${encodeURIComponent(a.path)}`)}>{a.title}</a>
                </h3>
                {a.shortDescription ? <p class="text">{a.shortDescription}</p> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section id="products" aria-labelledby="products-title">
        <h2 id="products-title">{t('layout.products')}</h2>
        {d.disableSearchBar ? null : (
          <form method="get" action={href(site, '/')} aria-label={t('home.search')} class="search">
            <label for="q" class="visually-hidden">
              {t('home.search')}
            </label>
            <input id="q" name="q" type="search" value={q} placeholder={t('home.search')} maxLength={100} />
            {category ? <input type="hidden" name="category" value={String(category.id)} /> : null}
            <button type="submit">{t('home.searchButton')}</button>
          </form>
        )}
        {page.categories.length > 0 ? (
          <nav aria-label={t('home.categories')} class="categories">
            <a href={href(site, '/')} aria-current={category ? undefined : 'page'}>
              {t('home.all')}
            </a>
            {page.categories.map((c) => (
              <a
                key={c.id}
                href={`${href(site, '/')}?category=${c.id}`}
                aria-current={category?.id === c.id ? 'page' : undefined}
              >
                {c.name}
              </a>
            ))}
          </nav>
        ) : null}
        {listings.length === 0 ? (
          <p class="muted">{q ? t('home.noMatch', { query: q }) : t('home.empty')}</p>
        ) : (
          <ul class="grid">
            {listings.map((l) =>
              l.product ? (
                <ProductCard key={l.id} site={site} product={l.product} page={page} />
              ) : (
                <li key={l.id} class="card product-card group">
                  <a href={href(site, `/products/${encodeURIComponent(l.group!.path)}`)}>
                    {l.group!.thumbnailUrl ? (
                      <Picture src={l.group!.thumbnailUrl} alt="" sizes={CARD_SIZES} />
                    ) : (
                      <Placeholder title={l.group!.title} />
                    )}
                    <h3>{l.group!.title}</h3>
                  </a>
                  <p class="muted">{t('home.groupCount', { count: l.group!.products.length })}</p>
                  {l.group!.products.length > 0 ? (
                    <p class="price">
                      {t('home.from', {
                        price: money(
                          Math.min(...l.group!.products.map((p) => p.minPrice.amount)),
                          l.group!.products[0]!.minPrice.currency,
                        ),
                      })}
                    </p>
                  ) : null}
                </li>
              ),
            )}
          </ul>
        )}
      </section>

      {d.disableReviews ? null : (
        <section aria-labelledby="reviews">
          <h2 id="reviews">{t('layout.reviews')}</h2>
          {stats.totalFeedbacks > 0 ? (
            <p>
              <Rating rating={stats.rating} count={stats.totalFeedbacks} />
            </p>
          ) : null}
          <FeedbackList feedbacks={page.feedbacks.slice(0, 3)} />
          {stats.totalFeedbacks > 3 ? <a href={href(site, '/feedbacks')}>{t('home.allReviews')}</a> : null}
        </section>
      )}

      {faqs.length > 0 ? (
        <section aria-labelledby="faq">
          <h2 id="faq">{t('home.faq')}</h2>
          {faqs.map((f) => (
            <details key={f.id} class="faq">
              <summary>{f.question}</summary>
              <p class="text">{f.answer}</p>
            </details>
          ))}
        </section>
      ) : null}
    </Layout>
  );
}
