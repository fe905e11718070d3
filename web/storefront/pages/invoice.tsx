import { Fragment } from 'preact';
import { storefrontPaths } from '../../../src/http/storefront-url.js';
import { paymentText } from '../../../src/i18n/instructions.js';
import type { Lang, MessageKey } from '../../../src/i18n/lang.js';
import type { feedbackOfInvoice } from '../../../src/modules/feedbacks/index.js';
import type { getPublicInvoice } from '../../../src/modules/orders/index.js';
import { Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { stars } from '../format.js';
import { gatewayLabel, useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { flowHref, href, type ShopDetails, type Site } from '../site.js';

export type PublicInvoiceView = NonNullable<Awaited<ReturnType<typeof getPublicInvoice>>>;
type FeedbackView = NonNullable<Awaited<ReturnType<typeof feedbackOfInvoice>>>;

/** How often a page without script reloads itself while the invoice is pending. */
export const REFRESH_SECONDS = 10;

/** `1:04:09`, `14:32`, `0:05`: the time left as the page's script also writes it. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** An order's status in words (the account page shows the same). */
export const STATUS_TEXT: Record<PublicInvoiceView['status'], MessageKey> = {
  pending: 'status.pending',
  completed: 'status.completed',
  expired: 'status.expired',
  cancelled: 'status.cancelled',
};

const PAYMENT_FIELDS: [key: 'handle' | 'email' | 'cashtag' | 'receiveCurrency' | 'terminalId', label: MessageKey][] = [
  ['handle', 'invoice.field.handle'],
  ['email', 'invoice.field.email'],
  ['cashtag', 'invoice.field.cashtag'],
  ['receiveCurrency', 'invoice.field.receiveCurrency'],
  ['terminalId', 'invoice.field.terminalId'],
];

/** Where a part's delivered items sit on the page (the Copy button points at it). */
export const goodsId = (partId: number) => `goods-${partId}`;

function CopyButton({ target, label }: { target: string; label: string }) {
  const { t } = useLang();
  // Shown by the script only where the browser can copy; without script the text is there to select.
  return (
    <button type="button" class="small" data-copy={target} data-copied={t('common.copied')} hidden aria-label={label}>
      {t('common.copy')}
    </button>
  );
}

function Totals({ invoice }: { invoice: PublicInvoiceView }) {
  const { t, money } = useLang();
  const c = invoice.currency;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t('invoice.item')}</th>
          <th scope="col">{t('invoice.quantity')}</th>
          <th scope="col">{t('invoice.unitPrice')}</th>
          <th scope="col">{t('invoice.total')}</th>
        </tr>
      </thead>
      <tbody>
        {invoice.parts.map((p) => (
          <tr key={p.id}>
            <td>
              {p.title}
              {p.variantTitle !== p.title ? <span class="muted"> · {p.variantTitle}</span> : null}
            </td>
            <td>{p.quantity}</td>
            <td>{money(p.unitPrice, c)}</td>
            <td>{money(p.total, c)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        {invoice.discount > 0 ? (
          <>
            <tr>
              <th scope="row" colSpan={3}>
                {t('invoice.subtotal')}
              </th>
              <td>{money(invoice.subtotal, c)}</td>
            </tr>
            <tr>
              <th scope="row" colSpan={3}>
                {invoice.coupon ? t('invoice.couponCode', { code: invoice.coupon }) : t('invoice.coupon')}
              </th>
              <td>−{money(invoice.discount, c)}</td>
            </tr>
          </>
        ) : null}
        <tr>
          <th scope="row" colSpan={3}>
            {t('invoice.total')}
          </th>
          <td>
            <strong>{money(invoice.total, c)}</strong>
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

type PaymentField = (typeof PAYMENT_FIELDS)[number][0];

function Payment({ site, invoice, csrf, now }: { site: Site; invoice: PublicInvoiceView; csrf: string; now: number }) {
  const lang = useLang();
  const { t, money } = lang;
  // The gateway's public fields (handle, e-mail, …) ride along when it has them.
  const payment = invoice.payment as (PublicInvoiceView['payment'] & Partial<Record<PaymentField, string>>) | null;
  // A card or crypto order: the provider's page closes before the invoice expires (the rest is for its last callback).
  const deadline = payment?.closesAt ?? invoice.expiresAt;
  const left = Date.parse(deadline) - now;
  return (
    <section aria-labelledby="pay" class="card">
      <h2 id="pay">{t('invoice.howToPay')}</h2>
      {payment?.note ? (
        <p class="notice warning" role="status">
          {payment.note}
        </p>
      ) : null}
      {payment?.note ? null : payment?.url ? (
        <>
          <p class="text">{paymentText(lang, payment)}</p>
          <p>
            {/* A provider's page is never framed: from an embed page it opens in its own tab. */}
            <a
              class="button primary"
              id="pay-now"
              href={payment.url}
              rel="noopener noreferrer"
              target={site.embed ? '_blank' : undefined}
            >
              {t('invoice.payNow', { amount: money(payment.amount, payment.currency) })}
            </a>
          </p>
          <p class="muted small">{t('invoice.comeBack')}</p>
        </>
      ) : payment ? (
        <>
          <p class="text">{paymentText(lang, payment)}</p>
          <dl class="payment">
            <dt>{t('invoice.amount')}</dt>
            <dd>
              <code id="pay-amount" data-value={String(payment.amount)}>
                {money(payment.amount, payment.currency)}
              </code>{' '}
              <CopyButton target="pay-amount" label={t('invoice.copyAmount')} />
            </dd>
            <dt>{t('invoice.reference')}</dt>
            <dd>
              <code id="pay-reference">{payment.reference}</code>{' '}
              <CopyButton target="pay-reference" label={t('invoice.copyReference')} />
            </dd>
            {PAYMENT_FIELDS.map(([key, label]) =>
              payment[key] ? (
                <Fragment key={key}>
                  <dt>{t(label)}</dt>
                  <dd>
                    <code id={`pay-${key}`}>{payment[key]}</code>{' '}
                    <CopyButton target={`pay-${key}`} label={t('invoice.copyField', { label: t(label) })} />
                  </dd>
                </Fragment>
              ) : null,
            )}
          </dl>
        </>
      ) : null}
      {payment?.note ? null : (
        <p>
          {t('invoice.timeLeft')}{' '}
          <strong>
            <span data-countdown={String(Math.max(0, Math.floor(left / 1000)))}>{clock(left)}</span>
          </strong>{' '}
          <span class="muted small">
            {lang.rich(payment?.closesAt ? 'invoice.pageCloses' : 'invoice.orderExpires', {
              when: lang.dayTime(deadline),
              time: (chunks) => (
                <time key="deadline" datetime={deadline}>
                  {chunks}
                </time>
              ),
            })}
          </span>
        </p>
      )}
      <p class="muted small">{t('invoice.updates')}</p>
      {/* Asked twice, without script: the disclosure opens the confirmation, and only its button cancels. */}
      <details class="cancel-order">
        <summary>{t('invoice.cancel')}</summary>
        <form method="post" action={flowHref(site, `${storefrontPaths.invoice(invoice.id)}/cancel`)} class="actions">
          <input type="hidden" name="_csrf" value={csrf} />
          <button type="submit" class="danger">
            {t('invoice.cancelConfirm')}
          </button>
          <span class="muted small">{t('invoice.cancelNote')}</span>
        </form>
      </details>
    </section>
  );
}

/** A completed order's files: links minted for this page view, each counting down. */
function Downloads({ invoice }: { invoice: PublicInvoiceView }) {
  const lang = useLang();
  const { t } = lang;
  if (invoice.downloads.length === 0) return null;
  const until = invoice.downloads[0]!.expiresAt;
  return (
    <section aria-labelledby="downloads" class="card">
      <h2 id="downloads">{t('invoice.downloads')}</h2>
      <ul class="downloads">
        {invoice.downloads.map((d) => (
          <li key={d.fileId}>
            <a class="button" href={d.url} rel="nofollow noopener" download={d.name}>
              {t('invoice.download', { name: d.name })}
            </a>{' '}
            <span class="muted small">
              {lang.fileSize(d.size)} ·{' '}
              {d.remaining === null ? t('invoice.unlimited') : t('invoice.downloadsLeft', { count: d.remaining })}
            </span>
          </li>
        ))}
      </ul>
      <p class="muted small">
        {lang.rich('invoice.linksUntil', {
          when: lang.dayTime(until),
          time: (chunks) => (
            <time key="until" datetime={until}>
              {chunks}
            </time>
          ),
        })}
      </p>
    </section>
  );
}

function Goods({ site, invoice }: { site: Site; invoice: PublicInvoiceView }) {
  const lang = useLang();
  const { t } = lang;
  const delivered = invoice.parts.filter((p) => p.deliverables.length > 0);
  if (delivered.length === 0 && invoice.replacements.length === 0) return null;
  return (
    <section aria-labelledby="goods" class="card">
      <h2 id="goods">{t('invoice.items')}</h2>
      {delivered.map((p) => (
        <div key={p.id} class="delivered">
          <h3>
            {p.title}
            {p.variantTitle !== p.title ? ` · ${p.variantTitle}` : ''} × {p.quantity}
          </h3>
          <pre class="goods" id={goodsId(p.id)}>
            {p.deliverables.join('\n')}
          </pre>
          <p class="actions">
            <CopyButton target={goodsId(p.id)} label={t('invoice.copyItems', { title: p.title })} />
          </p>
        </div>
      ))}
      {invoice.replacements.length > 0 ? (
        <>
          <h3>{t('invoice.replacements')}</h3>
          {invoice.replacements.map((r, i) => (
            <div key={`${r.partInvoiceId}-${r.createdAt}`} class="delivered">
              <p class="muted small">
                {lang.rich('invoice.replacementLine', {
                  count: r.quantity,
                  day: lang.day(r.createdAt),
                  time: (chunks) => (
                    <time key="day" datetime={r.createdAt}>
                      {chunks}
                    </time>
                  ),
                })}
              </p>
              <pre class="goods" id={`replacement-${i}`}>
                {r.deliverables.join('\n')}
              </pre>
              <p class="actions">
                <CopyButton target={`replacement-${i}`} label={t('invoice.copyReplacement')} />
              </p>
            </div>
          ))}
        </>
      ) : null}
      <p>
        <a class="button" href={href(site, `${storefrontPaths.invoice(invoice.id)}/goods.txt`)} download>
          {t('invoice.downloadTxt')}
        </a>
      </p>
    </section>
  );
}

export interface FeedbackValues {
  rating: string;
  comment: string;
}

function Feedback(props: {
  site: Site;
  invoice: PublicInvoiceView;
  feedback: FeedbackView | undefined;
  csrf: string;
  values: FeedbackValues;
  errors: PlacedErrors;
}) {
  const { feedback, errors } = props;
  const { t } = useLang();
  const e = errors.fields;
  if (feedback) {
    return (
      <section aria-labelledby="review" class="card">
        <h2 id="review">{t('review.yours')}</h2>
        <p>
          <span class="stars" role="img" aria-label={t('rating.stars', { rating: feedback.rating })}>
            {stars(feedback.rating)}
          </span>
        </p>
        {feedback.comment ? <p class="text">{feedback.comment}</p> : null}
        {feedback.answer ? (
          <blockquote class="answer">
            <strong>{t('feedback.answer')}</strong> <span class="text">{feedback.answer}</span>
          </blockquote>
        ) : null}
        <p class="muted small">{t('review.thanks')}</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="review" class="card">
      <h2 id="review">{t('review.leave')}</h2>
      <form method="post" action={flowHref(props.site, `${storefrontPaths.invoice(props.invoice.id)}/feedback`)}>
        <input type="hidden" name="_csrf" value={props.csrf} />
        {errors.other.length > 0 || errors.message ? (
          <FormErrors errors={errors.other} message={errors.message} />
        ) : null}
        <fieldset class={e.rating ? 'invalid' : undefined}>
          <legend>{t('review.rating')}</legend>
          {[5, 4, 3, 2, 1].map((n) => (
            <div key={n} class="field checkbox">
              <input
                id={`rating-${n}`}
                name="rating"
                type="radio"
                value={String(n)}
                checked={props.values.rating === String(n)}
                required
                {...describedBy('rating', { error: e.rating })}
              />
              <label for={`rating-${n}`}>
                <span aria-hidden="true" class="stars">
                  {stars(n)}
                </span>{' '}
                {t('review.option', { count: n })}
              </label>
            </div>
          ))}
          {e.rating ? (
            <p class="error" id="rating-error" role="alert">
              {e.rating}
            </p>
          ) : null}
        </fieldset>
        <Field id="comment" label={t('review.comment')} error={e.comment}>
          <textarea
            id="comment"
            name="comment"
            rows={4}
            maxLength={2000}
            value={props.values.comment}
            {...describedBy('comment', { error: e.comment })}
          />
        </Field>
        <button type="submit" class="button primary">
          {t('review.send')}
        </button>
      </form>
    </section>
  );
}

export interface InvoicePageProps {
  site: Site;
  details: ShopDetails;
  invoice: PublicInvoiceView;
  feedback: FeedbackView | undefined;
  csrf: string;
  /** The server's clock when the page was made (the countdown starts from it). */
  now: number;
  feedbackValues?: FeedbackValues;
  feedbackErrors?: PlacedErrors;
}

/**
 * The buyer's invoice page, reached by its unguessable id: what was ordered, and by status the
 * way to pay (with the time left and a cancel button), the delivered items with the review form,
 * or why nothing more will happen. While pending it follows the status by itself: the script
 * polls `…/status` (`data-status-url`) and reloads on a change; without script the page reloads
 * every REFRESH_SECONDS.
 */
export function InvoicePage(props: InvoicePageProps) {
  const { site, details, invoice } = props;
  const lang = useLang();
  const { t, money } = lang;
  const pending = invoice.status === 'pending';
  const invoicePath = storefrontPaths.invoice(invoice.id);
  return (
    <Layout
      site={site}
      details={details}
      title={t('invoice.title')}
      noindex
      head={
        pending ? (
          <noscript>
            <meta http-equiv="refresh" content={String(REFRESH_SECONDS)} />
          </noscript>
        ) : null
      }
    >
      <h1>{t('invoice.title')}</h1>
      {site.embed ? (
        // What the frame tells the website that embeds it (storefront.js posts it to the parent window).
        <div hidden id="embed-order" data-status={invoice.status} data-invoice={invoice.id} data-url={invoice.url} />
      ) : null}
      <p>
        {t('invoice.status')}{' '}
        <span
          class="status-pill"
          id="invoice-status"
          data-status={invoice.status}
          data-status-url={pending ? href(site, `${invoicePath}/status`) : undefined}
        >
          {invoice.status === 'completed' && invoice.refunded > 0
            ? invoice.refunded >= invoice.total
              ? t('status.refunded')
              : t('status.partlyRefunded')
            : t(STATUS_TEXT[invoice.status])}
        </span>
      </p>
      <p class="muted small">
        {lang.rich('invoice.meta', {
          id: invoice.id,
          day: lang.day(invoice.createdAt),
          method: gatewayLabel(lang, invoice.gateway),
          code: (chunks) => <code key="id">{chunks}</code>,
          time: (chunks) => (
            <time key="placed" datetime={invoice.createdAt}>
              {chunks}
            </time>
          ),
        })}
      </p>
      <p class="muted small">{t('invoice.keepLink')}</p>
      {site.embed ? (
        <p class="small">
          <a href={href(site, invoicePath)} target="_blank" rel="noopener">
            {t('embed.openOrder')}
          </a>
        </p>
      ) : null}

      <section aria-labelledby="items">
        <h2 id="items">{t('invoice.ordered')}</h2>
        <Totals invoice={invoice} />
      </section>

      {pending ? <Payment site={site} invoice={invoice} csrf={props.csrf} now={props.now} /> : null}
      {invoice.status === 'expired' ? (
        <p class="notice warning" role="status">
          {t('invoice.expired')}
        </p>
      ) : null}
      {invoice.status === 'cancelled' ? (
        <p class="notice" role="status">
          {t('invoice.cancelled')}
        </p>
      ) : null}
      {invoice.status === 'completed' ? (
        <>
          {invoice.refunded > 0 ? (
            <p class="notice" role="status">
              {t(invoice.refunded >= invoice.total ? 'invoice.refundedAll' : 'invoice.refundedPart', {
                amount: money(invoice.refunded, invoice.currency),
              })}
            </p>
          ) : (
            <p class="notice success" role="status">
              {invoice.completedAt
                ? t('invoice.completedOn', { day: lang.day(invoice.completedAt) })
                : t('invoice.completed')}
            </p>
          )}
          <Downloads invoice={invoice} />
          <Goods site={site} invoice={invoice} />
          <Feedback
            site={site}
            invoice={invoice}
            feedback={props.feedback}
            csrf={props.csrf}
            values={props.feedbackValues ?? { rating: '', comment: '' }}
            errors={props.feedbackErrors ?? { fields: {}, other: [] }}
          />
        </>
      ) : null}

      {details.design.disableSupport ? null : (
        <p>
          <a
            href={`${href(site, '/support')}?invoice=${encodeURIComponent(invoice.id)}`}
            target={site.embed ? '_blank' : undefined}
          >
            {t('invoice.openTicket')}
          </a>
        </p>
      )}
    </Layout>
  );
}

/** The delivered items as a text file: each part's title, then its items one per line. */
export function goodsText(invoice: PublicInvoiceView, lang: Lang): string {
  const blocks = invoice.parts
    .filter((p) => p.deliverables.length > 0)
    .map((p) => {
      const title = p.variantTitle !== p.title ? `${p.title} · ${p.variantTitle}` : p.title;
      return `# ${title} × ${p.quantity}\n${p.deliverables.join('\n')}`;
    });
  for (const r of invoice.replacements)
    blocks.push(
      `# ${lang.t('invoice.goodsReplacement', { day: lang.day(r.createdAt) })}\n${r.deliverables.join('\n')}`,
    );
  return `${blocks.join('\n\n')}\n`;
}
