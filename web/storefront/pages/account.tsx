import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { customerAccount } from '../../../src/modules/customer-sessions/index.js';
import { day, gatewayName, money } from '../format.js';
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

/** The signed-in buyer's account: the address, the store balance, their orders with the goods, sign-out. */
export function AccountPage(props: {
  site: Site;
  details: ShopDetails;
  account: Account;
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
