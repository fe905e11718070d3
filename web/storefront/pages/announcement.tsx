import type { announcementPage } from '../../../src/modules/storefront/index.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type Site } from '../site.js';

type AnnouncementPageData = Awaited<ReturnType<typeof announcementPage>>;

/** Only http(s) links become buttons: a `javascript:` link typed by an owner is never clickable. */
function safeLink(link: string | null): string | null {
  return link && /^https?:\/\//i.test(link) ? link : null;
}

export function AnnouncementPage({ site, data }: { site: Site; data: AnnouncementPageData }) {
  const lang = useLang();
  const a = data.announcement;
  const link = safeLink(a.buttonLink);
  return (
    <Layout
      site={site}
      details={data.mainDetails}
      title={a.title}
      description={a.shortDescription}
      path={`/announcements/${encodeURIComponent(a.path)}`}
    >
      <p class="breadcrumbs">
        <a href={href(site, '/')}>{lang.t('common.backToShop')}</a>
      </p>
      <article>
        <h1>{a.title}</h1>
        <p class="muted">
          <time datetime={a.createdAt}>{lang.day(a.createdAt)}</time>
        </p>
        <div class="text">{a.description}</div>
        {link ? (
          <p>
            <a class="button" href={link} rel="noopener noreferrer nofollow">
              {a.buttonText ?? lang.t('announcement.readMore')}
            </a>
          </p>
        ) : null}
      </article>
    </Layout>
  );
}
