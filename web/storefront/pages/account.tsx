import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { MessageKey } from '../../../src/i18n/lang.js';
import type { customerAccount } from '../../../src/modules/customer-sessions/index.js';
import type { customerLicenses } from '../../../src/modules/licenses/index.js';
import { gatewayLabel, useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';
import { STATUS_TEXT } from './invoice.js';

type Account = Awaited<ReturnType<typeof customerAccount>>;
type Order = Account['orders']['items'][number];

function OrderCard({ site, order }: { site: Site; order: Order }) {
  const lang = useLang();
  const { t, money } = lang;
  const link = href(site, storefrontPaths.invoice(order.id));
  const completed = order.status === 'completed';
  return (
    <li class="card order">
      <h3>
        <a href={link}>
          {lang.rich('account.orderOf', {
            day: lang.day(order.createdAt),
            time: (chunks) => (
              <time key="created" datetime={order.createdAt}>
                {chunks}
              </time>
            ),
          })}
        </a>{' '}
        <span class="status-pill" data-status={order.status}>
          {t(STATUS_TEXT[order.status])}
        </span>
      </h3>
      <p class="muted small">
        {t('account.orderMeta', {
          total: money(order.total, order.currency),
          method: gatewayLabel(lang, order.gateway),
        })}
        {order.completedAt ? (
          <>
            {' '}
            {lang.rich('account.completedOn', {
              day: lang.day(order.completedAt),
              time: (chunks) => (
                <time key="completed" datetime={order.completedAt!}>
                  {chunks}
                </time>
              ),
            })}
          </>
        ) : null}
      </p>
      <ul>
        {order.parts.map((p) => (
          <li key={p.id}>
            {p.title}
            {p.variantTitle !== p.title ? ` · ${p.variantTitle}` : ''} × {p.quantity}
            {completed && p.deliverables.length > 0 ? (
              <figure aria-label={t('account.itemsOf', { title: p.title })}>
                <pre class="goods">{p.deliverables.join('\n')}</pre>
              </figure>
            ) : null}
          </li>
        ))}
      </ul>
      {completed && order.downloads.length > 0 ? (
        <ul class="downloads" aria-label={t('invoice.downloads')}>
          {order.downloads.map((d) => (
            <li key={d.fileId}>
              <a href={d.url} rel="nofollow noopener" download={d.name}>
                {t('invoice.download', { name: d.name })}
              </a>{' '}
              <span class="muted small">
                {lang.fileSize(d.size)}
                {d.remaining === null ? '' : ` · ${t('invoice.downloadsLeft', { count: d.remaining })}`}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {completed && order.replacements.length > 0 ? (
        <>
          <p class="muted small">{t('invoice.replacements')}</p>
          {order.replacements.map((r) => (
            <figure key={`${r.partInvoiceId}-${r.createdAt}`} aria-label={t('account.replacementItems')}>
              <pre class="goods">{r.deliverables.join('\n')}</pre>
            </figure>
          ))}
        </>
      ) : null}
      <p class="actions">
        <a href={link}>{order.status === 'pending' ? t('account.seeHowToPay') : t('account.openOrder')}</a>
      </p>
    </li>
  );
}

type License = Awaited<ReturnType<typeof customerLicenses>>[number];

/** A licence of the buyer with the product it came with. */
export interface BuyerLicense {
  license: License;
  /** Null when the order that brought it is not found (the page says "your purchase"). */
  productTitle: string | null;
}

/** What the free-a-device form did, shown once on the page it leads back to. */
export type FreedNotice = 'freed' | 'already-free';

const LICENSE_STATUS_TEXT: Record<License['status'], MessageKey> = {
  active: 'license.status.active',
  inactive: 'license.status.inactive',
  expired: 'license.status.expired',
  disabled: 'license.status.disabled',
  revoked: 'license.status.revoked',
};

function LicenseCard({ site, item, csrf }: { site: Site; item: BuyerLicense; csrf: string }) {
  const { license: l, productTitle } = item;
  const lang = useLang();
  const { t } = lang;
  return (
    <li class="card license">
      <h3>
        {productTitle ?? t('account.yourPurchase')}{' '}
        <span class="status-pill" data-status={l.status}>
          {t(LICENSE_STATUS_TEXT[l.status])}
        </span>
      </h3>
      <p class="license-key">
        <span class="muted small">{t('license.key')}</span>
        <br />
        <code class="goods">{l.licenseKey}</code>
      </p>
      <p class="muted small">
        {l.activationLimit === null
          ? t('license.unlimited', { count: l.activationUsage })
          : t('license.used', { used: l.activationUsage, limit: l.activationLimit })}{' '}
        ·{' '}
        {l.expiresAt === null
          ? t('license.neverExpires')
          : lang.rich(l.status === 'expired' ? 'license.expiredOn' : 'license.validUntil', {
              day: lang.day(l.expiresAt),
              time: (chunks) => (
                <time key="expires" datetime={l.expiresAt!}>
                  {chunks}
                </time>
              ),
            })}{' '}
        ·{' '}
        <a href={href(site, storefrontPaths.invoice(l.invoiceId))}>
          {t('license.bought', { day: lang.day(l.createdAt) })}
        </a>
      </p>
      {l.instances.length > 0 ? (
        <ul class="instances" aria-label={t('license.devicesOf', { key: l.licenseKey })}>
          {l.instances.map((i) => (
            <li key={i.id}>
              <span>
                <strong>{i.name}</strong>
                <br />
                <span class="muted small">
                  {lang.rich('license.activatedAt', {
                    when: lang.dayTime(i.createdAt),
                    time: (chunks) => (
                      <time key="activated" datetime={i.createdAt}>
                        {chunks}
                      </time>
                    ),
                  })}
                </span>
              </span>
              <form method="post" action={href(site, `/account/licenses/${l.id}/instances/${i.id}/free`)}>
                <input type="hidden" name="_csrf" value={csrf} />
                <button type="submit" aria-label={t('license.freeLabel', { name: i.name })}>
                  {t('license.free')}
                </button>
              </form>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted small">{t('license.noDevice')}</p>
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
  const { t } = useLang();
  if (licenses.length === 0) return null;
  return (
    <section aria-labelledby="licenses">
      <h2 id="licenses">{t('license.title')}</h2>
      {freed === 'freed' ? (
        <p class="notice success" role="status">
          {t('license.freed')}
        </p>
      ) : freed === 'already-free' ? (
        <p class="notice" role="status">
          {t('license.alreadyFree')}
        </p>
      ) : null}
      <p class="muted small">{t('license.moving')}</p>
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
  const lang = useLang();
  const { t, money } = lang;
  const { orders } = account;
  return (
    <Layout site={site} details={details} title={t('account.title')} noindex>
      <section>
        <h1>{t('account.title')}</h1>
        <p>
          {lang.rich('account.signedInAs', {
            email: account.email,
            b: (chunks) => <strong key="email">{chunks}</strong>,
          })}
        </p>
        <p class="card balance">
          {t('account.balance')} <strong id="balance">{money(account.balance, account.currency)}</strong>
          <br />
          <span class="muted small">{t('account.balanceHint', { method: gatewayLabel(lang, 'balance') })}</span>
        </p>
        <form method="post" action={href(site, '/account/sign-out')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <button type="submit" class="button">
            {t('account.signOut')}
          </button>
        </form>
      </section>
      <Licenses site={site} licenses={props.licenses} freed={props.freed} csrf={props.csrf} />
      <section aria-labelledby="orders">
        <h2 id="orders">{t('account.orders')}</h2>
        {orders.items.length === 0 ? (
          <p class="muted">{props.cursor ? t('account.noOlder') : t('account.noOrders')}</p>
        ) : (
          <ul class="orders">
            {orders.items.map((o) => (
              <OrderCard key={o.id} site={site} order={o} />
            ))}
          </ul>
        )}
        <p class="actions">
          {props.cursor ? <a href={href(site, '/account')}>{t('account.newest')}</a> : null}{' '}
          {orders.nextCursor ? (
            <a href={`${href(site, '/account')}?cursor=${encodeURIComponent(orders.nextCursor)}`}>
              {t('account.older')}
            </a>
          ) : null}
        </p>
      </section>
    </Layout>
  );
}
