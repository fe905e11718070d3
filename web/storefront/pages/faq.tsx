import type { faqsPage } from '../../../src/modules/storefront/index.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import type { Site } from '../site.js';

type FaqsPageData = Awaited<ReturnType<typeof faqsPage>>;

export function FaqPage({ site, data }: { site: Site; data: FaqsPageData }) {
  const { t } = useLang();
  return (
    <Layout site={site} details={data.mainDetails} title={t('faq.title')} path="/faq">
      <h1>{t('faq.title')}</h1>
      {data.faqs.length === 0 ? <p class="muted">{t('faq.none')}</p> : null}
      {data.faqs.map((f) => (
        <details key={f.id} class="faq">
          <summary>{f.question}</summary>
          <p class="text">{f.answer}</p>
        </details>
      ))}
    </Layout>
  );
}
