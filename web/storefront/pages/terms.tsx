import { Layout } from '../layout.js';
import type { ShopDetails, Site } from '../site.js';

export function TermsPage({ site, details }: { site: Site; details: ShopDetails }) {
  return (
    <Layout site={site} details={details} title="Terms of service" path="/terms">
      <h1>Terms of service</h1>
      <div class="text terms">{details.terms}</div>
    </Layout>
  );
}
