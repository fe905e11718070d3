import { Fragment } from 'preact';
import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { feedbackOfInvoice } from '../../../src/modules/feedbacks/index.js';
import type { getPublicInvoice } from '../../../src/modules/orders/index.js';
import { Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { day, fileSize, gatewayName, money, stars } from '../format.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

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

const STATUS_TEXT: Record<PublicInvoiceView['status'], string> = {
  pending: 'Waiting for payment',
  completed: 'Completed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

const PAYMENT_FIELDS: [key: 'handle' | 'email' | 'cashtag' | 'receiveCurrency' | 'terminalId', label: string][] = [
  ['handle', 'Tip jar'],
  ['email', 'Send to'],
  ['cashtag', 'Cashtag'],
  ['receiveCurrency', 'Currency'],
  ['terminalId', 'Terminal'],
];

/** Where a part's delivered items sit on the page (the Copy button points at it). */
export const goodsId = (partId: number) => `goods-${partId}`;

function CopyButton({ target, label }: { target: string; label: string }) {
  // Shown by the script only where the browser can copy; without script the text is there to select.
  return (
    <button type="button" class="small" data-copy={target} hidden aria-label={label}>
      Copy
    </button>
  );
}

function Totals({ invoice }: { invoice: PublicInvoiceView }) {
  const c = invoice.currency;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Quantity</th>
          <th scope="col">Unit price</th>
          <th scope="col">Total</th>
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
                Subtotal
              </th>
              <td>{money(invoice.subtotal, c)}</td>
            </tr>
            <tr>
              <th scope="row" colSpan={3}>
                Coupon{invoice.coupon ? ` ${invoice.coupon}` : ''}
              </th>
              <td>−{money(invoice.discount, c)}</td>
            </tr>
          </>
        ) : null}
        <tr>
          <th scope="row" colSpan={3}>
            Total
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
  // The gateway's public fields (handle, e-mail, …) ride along when it has them.
  const payment = invoice.payment as (PublicInvoiceView['payment'] & Partial<Record<PaymentField, string>>) | null;
  // A card or crypto order: the provider's page closes before the invoice expires (the rest is for its last callback).
  const deadline = payment?.closesAt ?? invoice.expiresAt;
  const left = Date.parse(deadline) - now;
  return (
    <section aria-labelledby="pay" class="card">
      <h2 id="pay">How to pay</h2>
      {payment?.note ? (
        <p class="notice warning" role="status">
          {payment.note}
        </p>
      ) : null}
      {payment?.note ? null : payment?.url ? (
        <>
          <p class="text">{payment.instructions}</p>
          <p>
            <a class="button primary" id="pay-now" href={payment.url} rel="noopener noreferrer">
              Pay {money(payment.amount, payment.currency)} now
            </a>
          </p>
          <p class="muted small">You come back to this page once you have paid.</p>
        </>
      ) : payment ? (
        <>
          <p class="text">{payment.instructions}</p>
          <dl class="payment">
            <dt>Amount</dt>
            <dd>
              <code id="pay-amount">
                {payment.amount} {payment.currency}
              </code>{' '}
              <CopyButton target="pay-amount" label="Copy the amount" />
            </dd>
            <dt>Reference</dt>
            <dd>
              <code id="pay-reference">{payment.reference}</code>{' '}
              <CopyButton target="pay-reference" label="Copy the reference" />
            </dd>
            {PAYMENT_FIELDS.map(([key, label]) =>
              payment[key] ? (
                <Fragment key={key}>
                  <dt>{label}</dt>
                  <dd>
                    <code id={`pay-${key}`}>{payment[key]}</code>{' '}
                    <CopyButton target={`pay-${key}`} label={`Copy: ${label}`} />
                  </dd>
                </Fragment>
              ) : null,
            )}
          </dl>
        </>
      ) : null}
      {payment?.note ? null : (
        <p>
          Time left to pay:{' '}
          <strong>
            <span data-countdown={String(Math.max(0, Math.floor(left / 1000)))}>{clock(left)}</span>
          </strong>{' '}
          <span class="muted small">
            ({payment?.closesAt ? 'the payment page closes' : 'the order expires'}{' '}
            <time datetime={deadline}>
              {day(deadline)} at {deadline.slice(11, 16)} UTC
            </time>
            )
          </span>
        </p>
      )}
      <p class="muted small">This page updates by itself once the shop has your payment.</p>
      {/* Asked twice, without script: the disclosure opens the confirmation, and only its button cancels. */}
      <details class="cancel-order">
        <summary>Cancel this order</summary>
        <form method="post" action={href(site, `${storefrontPaths.invoice(invoice.id)}/cancel`)} class="actions">
          <input type="hidden" name="_csrf" value={csrf} />
          <button type="submit" class="danger">
            Yes, cancel this order
          </button>
          <span class="muted small">Nothing is charged; the items go back on sale. This cannot be undone.</span>
        </form>
      </details>
    </section>
  );
}

/** A completed order's files: links minted for this page view, each counting down. */
function Downloads({ invoice }: { invoice: PublicInvoiceView }) {
  if (invoice.downloads.length === 0) return null;
  return (
    <section aria-labelledby="downloads" class="card">
      <h2 id="downloads">Your downloads</h2>
      <ul class="downloads">
        {invoice.downloads.map((d) => (
          <li key={d.fileId}>
            <a class="button" href={d.url} rel="nofollow noopener" download={d.name}>
              Download {d.name}
            </a>{' '}
            <span class="muted small">
              {fileSize(d.size)} ·{' '}
              {d.remaining === null
                ? 'unlimited downloads'
                : d.remaining === 0
                  ? 'no downloads left'
                  : `${d.remaining} ${d.remaining === 1 ? 'download' : 'downloads'} left`}
            </span>
          </li>
        ))}
      </ul>
      <p class="muted small">
        These links work until{' '}
        <time datetime={invoice.downloads[0]!.expiresAt}>
          {day(invoice.downloads[0]!.expiresAt)}, {invoice.downloads[0]!.expiresAt.slice(11, 16)} UTC
        </time>
        ; opening this page again gives fresh ones. A download you resume does not count again.
      </p>
    </section>
  );
}

function Goods({ site, invoice }: { site: Site; invoice: PublicInvoiceView }) {
  const delivered = invoice.parts.filter((p) => p.deliverables.length > 0);
  if (delivered.length === 0 && invoice.replacements.length === 0) return null;
  return (
    <section aria-labelledby="goods" class="card">
      <h2 id="goods">Your items</h2>
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
            <CopyButton target={goodsId(p.id)} label={`Copy the items of ${p.title}`} />
          </p>
        </div>
      ))}
      {invoice.replacements.length > 0 ? (
        <>
          <h3>Replacements</h3>
          {invoice.replacements.map((r, i) => (
            <div key={`${r.partInvoiceId}-${r.createdAt}`} class="delivered">
              <p class="muted small">
                {r.quantity} {r.quantity === 1 ? 'item' : 'items'} on{' '}
                <time datetime={r.createdAt}>{day(r.createdAt)}</time>
              </p>
              <pre class="goods" id={`replacement-${i}`}>
                {r.deliverables.join('\n')}
              </pre>
              <p class="actions">
                <CopyButton target={`replacement-${i}`} label="Copy the replacement items" />
              </p>
            </div>
          ))}
        </>
      ) : null}
      <p>
        <a class="button" href={href(site, `${storefrontPaths.invoice(invoice.id)}/goods.txt`)} download>
          Download as .txt
        </a>
      </p>
    </section>
  );
}

export interface FeedbackValues {
  rating: string;
  comment: string;
}

const RATING_WORDS = ['', 'bad', 'poor', 'fair', 'good', 'excellent'];

function Feedback(props: {
  site: Site;
  invoice: PublicInvoiceView;
  feedback: FeedbackView | undefined;
  csrf: string;
  values: FeedbackValues;
  errors: PlacedErrors;
}) {
  const { feedback, errors } = props;
  const e = errors.fields;
  if (feedback) {
    return (
      <section aria-labelledby="review" class="card">
        <h2 id="review">Your review</h2>
        <p>
          <span class="stars" role="img" aria-label={`${feedback.rating} out of 5 stars`}>
            {stars(feedback.rating)}
          </span>
        </p>
        {feedback.comment ? <p class="text">{feedback.comment}</p> : null}
        {feedback.answer ? (
          <blockquote class="answer">
            <strong>The shop answered:</strong> <span class="text">{feedback.answer}</span>
          </blockquote>
        ) : null}
        <p class="muted small">Thank you for your review.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="review" class="card">
      <h2 id="review">Leave a review</h2>
      <form method="post" action={href(props.site, `${storefrontPaths.invoice(props.invoice.id)}/feedback`)}>
        <input type="hidden" name="_csrf" value={props.csrf} />
        {errors.other.length > 0 || errors.message ? (
          <FormErrors errors={errors.other} message={errors.message} />
        ) : null}
        <fieldset class={e.rating ? 'invalid' : undefined}>
          <legend>Rating</legend>
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
                {n} {n === 1 ? 'star' : 'stars'} ({RATING_WORDS[n]})
              </label>
            </div>
          ))}
          {e.rating ? (
            <p class="error" id="rating-error" role="alert">
              {e.rating}
            </p>
          ) : null}
        </fieldset>
        <Field id="comment" label="Comment (optional)" error={e.comment}>
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
          Send review
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
  const pending = invoice.status === 'pending';
  const invoicePath = storefrontPaths.invoice(invoice.id);
  return (
    <Layout
      site={site}
      details={details}
      title="Your order"
      noindex
      head={
        pending ? (
          <noscript>
            <meta http-equiv="refresh" content={String(REFRESH_SECONDS)} />
          </noscript>
        ) : null
      }
    >
      <h1>Your order</h1>
      <p>
        Status:{' '}
        <span
          class="status-pill"
          id="invoice-status"
          data-status={invoice.status}
          data-status-url={pending ? href(site, `${invoicePath}/status`) : undefined}
        >
          {invoice.status === 'completed' && invoice.refunded > 0
            ? invoice.refunded >= invoice.total
              ? 'Refunded'
              : 'Partly refunded'
            : STATUS_TEXT[invoice.status]}
        </span>
      </p>
      <p class="muted small">
        Order <code>{invoice.id}</code> · placed <time datetime={invoice.createdAt}>{day(invoice.createdAt)}</time> ·
        payment: {gatewayName(invoice.gateway)}
      </p>
      <p class="muted small">Keep the link to this page: it is the only way to see your order without signing in.</p>

      <section aria-labelledby="items">
        <h2 id="items">What you ordered</h2>
        <Totals invoice={invoice} />
      </section>

      {pending ? <Payment site={site} invoice={invoice} csrf={props.csrf} now={props.now} /> : null}
      {invoice.status === 'expired' ? (
        <p class="notice warning" role="status">
          This order expired before it was paid. Nothing was charged and the items went back on sale. If you sent a
          payment anyway, open a ticket about this order.
        </p>
      ) : null}
      {invoice.status === 'cancelled' ? (
        <p class="notice" role="status">
          This order was cancelled. Nothing was charged and the items went back on sale.
        </p>
      ) : null}
      {invoice.status === 'completed' ? (
        <>
          {invoice.refunded > 0 ? (
            <p class="notice" role="status">
              {invoice.refunded >= invoice.total
                ? `This order was refunded (${money(invoice.refunded, invoice.currency)}).`
                : `${money(invoice.refunded, invoice.currency)} of this order was refunded.`}{' '}
              Your items stay below.
            </p>
          ) : (
            <p class="notice success" role="status">
              Your order was completed{invoice.completedAt ? ` on ${day(invoice.completedAt)}` : ''}. Your items are
              below.
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
          <a href={`${href(site, '/support')}?invoice=${encodeURIComponent(invoice.id)}`}>
            Open a ticket about this order
          </a>
        </p>
      )}
    </Layout>
  );
}

/** The delivered items as a text file: each part's title, then its items one per line. */
export function goodsText(invoice: PublicInvoiceView): string {
  const blocks = invoice.parts
    .filter((p) => p.deliverables.length > 0)
    .map((p) => {
      const title = p.variantTitle !== p.title ? `${p.title} · ${p.variantTitle}` : p.title;
      return `# ${title} × ${p.quantity}\n${p.deliverables.join('\n')}`;
    });
  for (const r of invoice.replacements)
    blocks.push(`# Replacement (${r.createdAt.slice(0, 10)})\n${r.deliverables.join('\n')}`);
  return `${blocks.join('\n\n')}\n`;
}
