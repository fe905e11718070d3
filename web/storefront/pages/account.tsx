import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { customerAccount } from '../../../src/modules/customer-sessions/index.js';
import type { customerLicenses } from '../../../src/modules/licenses/index.js';
import { day, fileSize, gatewayName, money } from '../format.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

type Account = Awaited<ReturnType<typeof customerAccount>>;
type Order = Account['orders']['items'][number];

const STATUS_TEXT: Record<Order['status'], string> = {
  pending: 'Waiting for payment',
  completed: 'Completed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

function OrderCard({ site, order }: { site: Site; order: Order }) {
  const link = href(site, storefrontPaths.invoice(order.id));
  const completed = order.status === 'completed';
  return (
    <li class="card order">
      <h3>
        <a href={link}>
          Order of <time datetime={order.createdAt}>{day(order.createdAt)}</time>
        </a>{' '}
        <span class="status-pill" data-status={order.status}>
          {STATUS_TEXT[order.status]}
        </span>
      </h3>
      <p class="muted small">
        Total {money(order.total, order.currency)} · paid with {gatewayName(order.gateway)}
        {order.completedAt ? (
          <>
            {' '}
            · completed <time datetime={order.completedAt}>{day(order.completedAt)}</time>
          </>
        ) : null}
      </p>
      <ul>
        {order.parts.map((p) => (
          <li key={p.id}>
            {p.title}
            {p.variantTitle !== p.title ? ` · ${p.variantTitle}` : ''} × {p.quantity}
            {completed && p.deliverables.length > 0 ? (
              <figure aria-label={`Your items of ${p.title}`}>
                <pre class="goods">{p.deliverables.join('\n')}</pre>
              </figure>
            ) : null}
          </li>
        ))}
      </ul>
      {completed && order.downloads.length > 0 ? (
        <ul class="downloads" aria-label="Your downloads">
          {order.downloads.map((d) => (
            <li key={d.fileId}>
              <a href={d.url} rel="nofollow noopener" download={d.name}>
                Download {d.name}
              </a>{' '}
              <span class="muted small">
                {fileSize(d.size)}
                {d.remaining === null ? '' : ` · ${d.remaining} ${d.remaining === 1 ? 'download' : 'downloads'} left`}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {completed && order.replacements.length > 0 ? (
        <>
          <p class="muted small">Replacements</p>
          {order.replacements.map((r) => (
            <figure key={`${r.partInvoiceId}-${r.createdAt}`} aria-label="Replacement items">
              <pre class="goods">{r.deliverables.join('\n')}</pre>
            </figure>
          ))}
        </>
      ) : null}
      <p class="actions">
        <a href={link}>{order.status === 'pending' ? 'See how to pay' : 'Open the order page'}</a>
      </p>
    </li>
  );
}

type License = Awaited<ReturnType<typeof customerLicenses>>[number];

/** A licence of the buyer with the product it came with. */
export interface BuyerLicense {
  license: License;
  productTitle: string;
}

/** What the free-a-device form did, shown once on the page it leads back to. */
export type FreedNotice = 'freed' | 'already-free';

const LICENSE_STATUS_TEXT: Record<License['status'], string> = {
  active: 'Active',
  inactive: 'Not in use',
  expired: 'Expired',
  disabled: 'Paused by the shop',
  revoked: 'Revoked',
};

/** `12 Mar 2026, 14:05 UTC` */
const dayAndTime = (iso: string) => `${day(iso)}, ${iso.slice(11, 16)} UTC`;

function LicenseCard({ site, item, csrf }: { site: Site; item: BuyerLicense; csrf: string }) {
  const { license: l, productTitle } = item;
  return (
    <li class="card license">
      <h3>
        {productTitle}{' '}
        <span class="status-pill" data-status={l.status}>
          {LICENSE_STATUS_TEXT[l.status]}
        </span>
      </h3>
      <p class="license-key">
        <span class="muted small">Licence key</span>
        <br />
        <code class="goods">{l.licenseKey}</code>
      </p>
      <p class="muted small">
        {l.activationLimit === null
          ? `Activated on ${l.activationUsage} ${l.activationUsage === 1 ? 'device' : 'devices'} (no limit)`
          : `${l.activationUsage} of ${l.activationLimit} ${l.activationLimit === 1 ? 'activation' : 'activations'} used`}{' '}
        ·{' '}
        {l.expiresAt === null ? (
          'never expires'
        ) : (
          <>
            {l.status === 'expired' ? 'expired' : 'valid until'} <time datetime={l.expiresAt}>{day(l.expiresAt)}</time>
          </>
        )}{' '}
        · <a href={href(site, storefrontPaths.invoice(l.invoiceId))}>bought {day(l.createdAt)}</a>
      </p>
      {l.instances.length > 0 ? (
        <ul class="instances" aria-label={`Devices using ${l.licenseKey}`}>
          {l.instances.map((i) => (
            <li key={i.id}>
              <span>
                <strong>{i.name}</strong>
                <br />
                <span class="muted small">
                  Activated <time datetime={i.createdAt}>{dayAndTime(i.createdAt)}</time>
                </span>
              </span>
              <form method="post" action={href(site, `/account/licenses/${l.id}/instances/${i.id}/free`)}>
                <input type="hidden" name="_csrf" value={csrf} />
                <button type="submit" aria-label={`Free this device: ${i.name}`}>
                  Free this device
                </button>
              </form>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted small">Not activated on any device.</p>
      )}
    </li>
  );
}

/** The buyer's licences: key, status, activations and the devices using each, which they can free. */
function Licenses({
  site,
  licenses,
  freed,
  csrf,
}: {
  site: Site;
  licenses: BuyerLicense[];
  freed?: FreedNotice | undefined;
  csrf: string;
}) {
  if (licenses.length === 0) return null;
  return (
    <section aria-labelledby="licenses">
      <h2 id="licenses">Your licences</h2>
      {freed === 'freed' ? (
        <p class="notice success" role="status">
          The device was freed: its activation can be used on another one.
        </p>
      ) : freed === 'already-free' ? (
        <p class="notice" role="status">
          That device was already freed.
        </p>
      ) : null}
      <p class="muted small">Moving to a new computer? Free the old one here, then activate the key on the new one.</p>
      <ul class="licenses">
        {licenses.map((item) => (
          <LicenseCard key={item.license.id} site={site} item={item} csrf={csrf} />
        ))}
      </ul>
    </section>
  );
}

/** The signed-in buyer's account: the address, the store balance, their licences, their orders with the goods, sign-out. */
export function AccountPage(props: {
  site: Site;
  details: ShopDetails;
  account: Account;
  /** The buyer's licences of this shop, newest first. */
  licenses: BuyerLicense[];
  /** Shown after the free-a-device form. */
  freed?: FreedNotice | undefined;
  csrf: string;
  /** The cursor of this page, when it is not the first. */
  cursor?: string | undefined;
}) {
  const { site, details, account } = props;
  const { orders } = account;
  return (
    <Layout site={site} details={details} title="Your account" noindex>
      <section>
        <h1>Your account</h1>
        <p>
          Signed in as <strong>{account.email}</strong>
        </p>
        <p class="card balance">
          Store balance: <strong id="balance">{money(account.balance, account.currency)}</strong>
          <br />
          <span class="muted small">Pay for an order with it at checkout: choose “Store balance”.</span>
        </p>
        <form method="post" action={href(site, '/account/sign-out')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <button type="submit" class="button">
            Sign out
          </button>
        </form>
      </section>
      <Licenses site={site} licenses={props.licenses} freed={props.freed} csrf={props.csrf} />
      <section aria-labelledby="orders">
        <h2 id="orders">Your orders</h2>
        {orders.items.length === 0 ? (
          <p class="muted">{props.cursor ? 'No older orders.' : 'You have no orders in this shop yet.'}</p>
        ) : (
          <ul class="orders">
            {orders.items.map((o) => (
              <OrderCard key={o.id} site={site} order={o} />
            ))}
          </ul>
        )}
        <p class="actions">
          {props.cursor ? <a href={href(site, '/account')}>Newest orders</a> : null}{' '}
          {orders.nextCursor ? (
            <a href={`${href(site, '/account')}?cursor=${encodeURIComponent(orders.nextCursor)}`}>Older orders</a>
          ) : null}
        </p>
      </section>
    </Layout>
  );
}
