import type { faqsPage } from '../../../src/modules/storefront/index.js';
import { Layout } from '../layout.js';
import type { Site } from '../site.js';

type FaqsPageData = Awaited<ReturnType<typeof faqsPage>>;

export function FaqPage({ site, data }: { site: Site; data: FaqsPageData }) {
  return (
    <Layout site={site} details={data.mainDetails} title="Questions and answers" path="/faq">
      <h1>Questions and answers</h1>
      {data.faqs.length === 0 ? <p class="muted">No questions yet.</p> : null}
      {data.faqs.map((f) => (
        <details key={f.id} class="faq">
          <summary>{f.question}</summary>
          <p class="text">{f.answer}</p>
        </details>
      ))}
    </Layout>
  );
}
