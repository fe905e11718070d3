import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { domainEvents } from '../../domain/events.js';
import { ConflictError, NotFoundError, PaymentProviderError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import type { PageQuery } from '../../schemas/common.js';
import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { SecretBox } from '../../security/secret-box.js';
import { blockBuyer } from '../blacklist/index.js';
import { downloadLogOfInvoice } from '../files/index.js';
import { type DisputeFacts, hostedGateways, ProviderCallError, type ProviderEndpoints } from '../gateways/index.js';
import { licenseActivationsOfInvoice } from '../licenses/index.js';
import * as orders from '../orders/index.js';
import { protectionOf } from '../protection/index.js';
import { gatewayCredentials } from '../settings/index.js';
import { findShop, type HostedProvider, lockShop } from '../shops/index.js';
import type { DisputeRow } from './disputes.table.js';
import * as repo from './repository.js';
import { toDispute } from './views.js';

type Conn = Kysely<Database>;

/**
 * Payment disputes (chargebacks). The provider's `charge.dispute.*` events reach this module
 * through the payments module's callback (its payment reference finds the order); a new dispute
 * is recorded beside the invoice (whose status stays what the contract defines), announced as
 * `invoice.disputed` (the order's licences and downloads end, as on a full refund; the webhook),
 * and, when the shop chose so (protection), blacklists the buyer's e-mail and IP, all in one
 * transaction. The evidence is assembled from what shopd recorded of the order and submitted to
 * the provider's disputes API by the owner, or at once when the shop turned auto-submit on.
 */

/** What the disputes code needs of a server: the key to the gateways' secrets, the providers' APIs, a log. */
export interface DisputeContext {
  secrets: SecretBox;
  endpoints: ProviderEndpoints;
  log: { warn(obj: object, msg: string): void };
}

/** What a dispute event did: a new dispute recorded, one already known updated, or no order of the shop had the payment. */
export type DisputeApplied = 'disputed' | 'dispute-updated' | 'ignored';

export async function recordDispute(
  ctx: Context,
  disputes: DisputeContext,
  shopId: number,
  provider: HostedProvider,
  facts: DisputeFacts,
): Promise<DisputeApplied> {
  const invoice = await orders.invoiceOfProviderReference(ctx.db, shopId, provider, facts.reference);
  if (!invoice) return 'ignored';
  const protection = await protectionOf(ctx.db, shopId);
  const now = ctx.clock.now();
  const created = await writeTransaction(ctx, async (tx) => {
    // Exclusive: the blacklist's check-then-insert, and one row per provider dispute however
    // many deliveries of its events race.
    await lockShop(tx.db, shopId);
    const known = await repo.findDisputeByProviderId(tx.db, provider, facts.id);
    if (known) {
      if (known.shop_id === shopId)
        await repo.updateDispute(tx.db, shopId, known.id, {
          status: facts.status,
          reason: facts.reason.slice(0, 100),
          updated_at: now,
        });
      return null;
    }
    const row = await repo.insertDispute(tx.db, {
      shop_id: shopId,
      invoice_id: invoice.id,
      provider,
      provider_dispute_id: facts.id.slice(0, 255),
      status: facts.status,
      reason: facts.reason.slice(0, 100),
      amount: facts.amount,
      currency: facts.currency.slice(0, 3),
      created_at: now,
      updated_at: now,
      evidence_submitted_at: null,
      evidence: null,
      submit_error: null,
    });
    if (protection.disputeBlacklist)
      await blockBuyer(
        tx.db,
        shopId,
        { email: invoice.customer_email, ip: invoice.ip },
        `Dispute ${facts.id} on order ${invoice.id}`,
        now,
      );
    await domainEvents.emit(tx, 'invoice.disputed', {
      invoice,
      now,
      dispute: {
        id: row.id,
        providerDisputeId: row.provider_dispute_id,
        status: row.status,
        reason: row.reason,
        amount: row.amount,
        currency: row.currency,
      },
      webhook: {
        at: now,
        data: {
          invoiceId: invoice.id,
          disputeId: row.id,
          providerDisputeId: row.provider_dispute_id,
          status: row.status,
          reason: row.reason,
          amount: toDispute(row).amount,
          currency: row.currency,
        },
        // The invoice as the owner API shows it, its dispute included, read in this transaction.
        detail: async () => ({ invoice: await orders.getInvoice(tx, await findShop(tx.db, shopId), invoice.id) }),
      },
    });
    return row;
  });
  if (!created) return 'dispute-updated';
  if (protection.disputeAutoSubmit)
    try {
      await submitEvidence(ctx, disputes, shopId, created.id);
    } catch (err) {
      // Recorded on the dispute (submitError): the owner sees it and submits again.
      disputes.log.warn({ err, shopId, disputeId: created.id }, 'automatic submission of dispute evidence failed');
    }
  return 'disputed';
}

/** A view of an invoice by its buyer (the public invoice API, the storefront invoice page): evidence should a dispute come. */
export async function recordInvoiceView(
  db: Conn,
  shopId: number,
  invoiceId: string,
  client: { ip: string | null; userAgent: string | null },
  at: number,
): Promise<void> {
  await repo.insertInvoiceView(db, {
    shop_id: shopId,
    invoice_id: invoiceId,
    at,
    ip: client.ip?.slice(0, 64) ?? null,
    user_agent: client.userAgent?.slice(0, 500) ?? null,
  });
}

/** The disputes of these invoices, the latest of each (the owner's invoice views). */
export async function disputesOfInvoices(db: Conn, shopId: number, invoiceIds: string[]) {
  if (invoiceIds.length === 0) return [];
  const latest = new Map<string, DisputeRow>();
  for (const row of await repo.latestDisputeOfInvoices(db, shopId, invoiceIds)) latest.set(row.invoice_id, row);
  return [...latest.values()].map(toDispute);
}

async function requireDispute(db: Conn, shopId: number, disputeId: number): Promise<DisputeRow> {
  const row = await repo.findDispute(db, shopId, disputeId);
  if (!row) throw new NotFoundError('Dispute');
  return row;
}

export async function listDisputes(ctx: Context, shopId: number, query: PageQuery) {
  const { limit, offset } = pageWindow(query);
  const [rows, total] = await Promise.all([
    repo.listDisputes(ctx.db, shopId, limit, offset),
    repo.countDisputes(ctx.db, shopId),
  ]);
  return toPage(rows.map(toDispute), total, query);
}

export async function getDispute(ctx: Context, shopId: number, disputeId: number) {
  const row = await requireDispute(ctx.db, shopId, disputeId);
  return {
    ...toDispute(row),
    evidence: await assembleEvidence(ctx.db, row),
    submittedEvidence: row.evidence === null ? null : (JSON.parse(row.evidence) as Record<string, string>),
  };
}

/**
 * What shopd knows of the order: who bought it from where, what was delivered and when (by name:
 * the keys and serials stay out of it), every view of its invoice page, every download, every
 * licence activation (with IP and user agent), and the terms the order was placed under.
 */
export async function assembleEvidence(db: Conn, dispute: DisputeRow) {
  const { shop_id: shopId, invoice_id: invoiceId } = dispute;
  const invoice = await orders.requireInvoice(db, shopId, invoiceId);
  const [items, views, downloads, activations, shop, accepted] = await Promise.all([
    orders.orderedLines(db, shopId, invoiceId),
    repo.viewsOfInvoice(db, shopId, invoiceId),
    downloadLogOfInvoice(db, shopId, invoiceId),
    licenseActivationsOfInvoice(db, shopId, invoiceId),
    findShop(db, shopId),
    orders.termsOfInvoice(db, shopId, invoiceId),
  ]);
  const completedAt = invoice.completed_at === null ? null : toIso(Number(invoice.completed_at));
  return {
    customer: {
      email: invoice.customer_email,
      purchaseIp: invoice.ip,
      purchaseUserAgent: invoice.user_agent,
      country: invoice.country,
    },
    order: {
      invoiceId,
      createdAt: toIso(Number(invoice.created_at)),
      completedAt,
      total: fromMinorUnits(invoice.total, invoice.currency),
      currency: invoice.currency,
    },
    delivered: { at: completedAt, items: invoice.status === 'completed' ? items : [] },
    invoiceViews: views.map((v) => ({ at: toIso(Number(v.at)), ip: v.ip, userAgent: v.user_agent })),
    downloads: downloads.map((d) => ({ file: d.name, bytes: d.bytes, at: d.at, ip: d.ip, userAgent: d.userAgent })),
    licenseActivations: activations,
    // The terms the order was placed under; for an order placed before they were recorded, the shop's as they are now.
    terms: accepted ?? shop.terms ?? null,
    termsAtCheckout: accepted !== null,
  };
}

type Evidence = Awaited<ReturnType<typeof assembleEvidence>>;

/** Stripe's text fields take 20,000 characters each. */
const clip = (text: string) => (text.length > 20_000 ? `${text.slice(0, 19_990)}\n[…]` : text);

/** The evidence as Stripe's dispute `evidence` fields (plain text; empty ones left out). */
export function stripeEvidence(evidence: Evidence): Record<string, string> {
  const log = [
    ...evidence.invoiceViews.map(
      (v) => `${v.at} viewed the invoice page from ${v.ip ?? 'unknown IP'} (${v.userAgent ?? 'unknown agent'})`,
    ),
    ...evidence.downloads.map(
      (d) =>
        `${d.at} downloaded "${d.file}" (${d.bytes} bytes) from ${d.ip ?? 'unknown IP'} (${d.userAgent ?? 'unknown agent'})`,
    ),
    ...evidence.licenseActivations.map(
      (a) =>
        `${a.activatedAt} activated licence ${a.licenseId} of product ${a.productId} on "${a.instance}" from ` +
        `${a.ip ?? 'unknown IP'} (${a.userAgent ?? 'unknown agent'})`,
    ),
  ].sort();
  const fields: Record<string, string> = {
    customer_email_address: evidence.customer.email,
    product_description: clip(
      `Digital goods, order ${evidence.order.invoiceId} of ${evidence.order.total} ${evidence.order.currency}, ` +
        `delivered ${evidence.delivered.at ?? 'not yet'}: ` +
        (evidence.delivered.items.map((i) => `${i.quantity} × ${i.title}`).join('; ') || 'nothing'),
    ),
  };
  if (evidence.customer.purchaseIp) fields.customer_purchase_ip = evidence.customer.purchaseIp;
  if (evidence.delivered.at) fields.service_date = evidence.delivered.at.slice(0, 10);
  if (log.length > 0) fields.access_activity_log = clip(log.join('\n'));
  if (evidence.terms)
    fields.uncategorized_text = clip(
      evidence.termsAtCheckout
        ? `The terms of service the order was placed under (the buyer accepted them at checkout):\n${evidence.terms}`
        : `The shop's terms of service:\n${evidence.terms}`,
    );
  return fields;
}

/**
 * Submits the dispute's evidence to the provider (Stripe: `disputes.update` with `evidence`
 * and `submit: true`). 409 when already submitted or closed, or the gateway is no longer set
 * up; 502 when the provider refuses or does not answer (the reason kept on the dispute).
 */
export async function submitEvidence(ctx: Context, disputes: DisputeContext, shopId: number, disputeId: number) {
  const row = await requireDispute(ctx.db, shopId, disputeId);
  if (row.evidence_submitted_at !== null)
    throw new ConflictError('The evidence of this dispute was already submitted.', [
      'dispute: evidence already submitted',
    ]);
  if (row.status === 'won' || row.status === 'lost')
    throw new ConflictError('This dispute is closed.', [`dispute: is ${row.status}`]);
  const provider = row.provider as HostedProvider;
  const gateway = hostedGateways[provider];
  const credentials = await gatewayCredentials(ctx.db, disputes.secrets, shopId, provider);
  if (!credentials || !gateway?.submitDisputeEvidence)
    throw new ConflictError('The payment gateway of this dispute is not set up in the shop.', [
      `provider: ${provider} is not configured`,
    ]);
  const fields = stripeEvidence(await assembleEvidence(ctx.db, row));
  try {
    await gateway.submitDisputeEvidence(credentials, row.provider_dispute_id, fields, disputes.endpoints);
  } catch (err) {
    if (!(err instanceof ProviderCallError)) throw err;
    await repo.updateDispute(ctx.db, shopId, row.id, {
      submit_error: err.detail.slice(0, 1000),
      updated_at: ctx.clock.now(),
    });
    throw new PaymentProviderError(err.detail);
  }
  const now = ctx.clock.now();
  await repo.updateDispute(ctx.db, shopId, row.id, {
    evidence: JSON.stringify(fields),
    evidence_submitted_at: now,
    submit_error: null,
    status: row.status === 'needs_response' ? 'under_review' : row.status,
    updated_at: now,
  });
  return getDispute(ctx, shopId, disputeId);
}
