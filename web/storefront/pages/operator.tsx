import { assetUrl } from '../assets.js';
import { BarePage } from './problem.js';

export interface DirectoryShop {
  name: string;
  url: string;
}

/**
 * The page at `/` of the operator's own host: what this server is and where to go from here —
 * the admin, the API reference and (unless `ROOT_PAGE_SHOPS` is off) the newest shops.
 */
export function OperatorPage(props: { shops: { listed: DirectoryShop[]; total: number } | null }) {
  const { shops } = props;
  return (
    <BarePage title="shopd">
      <section class="operator">
        <h1>
          <img src={assetUrl('favicon.svg')} alt="" width={40} height={40} />
          This server runs shopd
        </h1>
        <p>A self-hosted shop for digital goods: keys, files and licences, delivered when the payment arrives.</p>
        <ul class="operator-links">
          <li>
            <a href="/admin/">Admin</a>
            <span class="muted"> — the owner's screens: shops, products, orders, customers and payments.</span>
          </li>
          <li>
            <a href="/docs">API reference</a>
            <span class="muted">
              {' '}
              — every operation, tried from the browser; the OpenAPI description is at{' '}
              <a href="/openapi.json">/openapi.json</a>.
            </span>
          </li>
          <li>
            <a href="/health">Health</a>
            <span class="muted"> — whether the server and its database answer.</span>
          </li>
        </ul>
        {shops ? (
          <>
            <h2>Shops</h2>
            {shops.listed.length === 0 ? (
              <p>No shop yet: create one in the admin or with the API.</p>
            ) : (
              <ul class="operator-shops">
                {shops.listed.map((shop) => (
                  <li key={shop.url}>
                    <a href={shop.url}>{shop.name}</a> <span class="muted small">{shop.url}</span>
                  </li>
                ))}
              </ul>
            )}
            {shops.total > shops.listed.length ? (
              <p class="muted">
                The newest {shops.listed.length} of {shops.total} shops.
              </p>
            ) : null}
          </>
        ) : null}
      </section>
    </BarePage>
  );
}
