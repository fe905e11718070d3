import type { feedbacksPage } from '../../../src/modules/storefront/index.js';
import { FeedbackList, Rating } from '../components.js';
import { Layout } from '../layout.js';
import { href, type Site } from '../site.js';

type FeedbacksPageData = Awaited<ReturnType<typeof feedbacksPage>>;

export function FeedbacksPage({ site, data }: { site: Site; data: FeedbacksPageData }) {
  const page = data.feedbacks;
  return (
    <Layout site={site} details={data.mainDetails} title="Reviews" path="/feedbacks">
      <h1>Reviews</h1>
      <p>
        <Rating rating={data.statistics.rating} count={data.statistics.totalFeedbacks} />
      </p>
      <FeedbackList feedbacks={page.items} />
      {page.nextCursor ? (
        <p>
          <a href={`${href(site, '/feedbacks')}?cursor=${encodeURIComponent(page.nextCursor)}`} rel="next">
            Older reviews
          </a>
        </p>
      ) : null}
    </Layout>
  );
}
