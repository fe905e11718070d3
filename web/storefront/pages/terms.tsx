import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import type { ShopDetails, Site } from '../site.js';

export function TermsPage({ site, details }: { site: Site; details: ShopDetails }) {
  const { t } = useLang();
  return (
    <Layout site={site} details={details} title={t('terms.title')} path="/terms">
      <h1>{t('terms.title')}</h1>
      <div class="text terms">{details.terms}</div>
    </Layout>
  );
}
