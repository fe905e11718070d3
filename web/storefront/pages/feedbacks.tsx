import type { feedbacksPage } from '../../../src/modules/storefront/index.js';
import { FeedbackList, Rating } from '../components.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type Site } from '../site.js';

type FeedbacksPageData = Awaited<ReturnType<typeof feedbacksPage>>;

export function FeedbacksPage({ site, data }: { site: Site; data: FeedbacksPageData }) {
  const { t } = useLang();
  const page = data.feedbacks;
  return (
    <Layout site={site} details={data.mainDetails} title={t('reviews.title')} path="/feedbacks">
      <h1>{t('reviews.title')}</h1>
      <p>
        <Rating rating={data.statistics.rating} count={data.statistics.totalFeedbacks} />
      </p>
      <FeedbackList feedbacks={page.items} />
      {page.nextCursor ? (
        <p>
          <a href={`${href(site, '/feedbacks')}?cursor=${encodeURIComponent(page.nextCursor)}`} rel="next">
            {t('reviews.older')}
          </a>
        </p>
      ) : null}
    </Layout>
  );
}
