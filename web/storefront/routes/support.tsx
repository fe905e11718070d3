import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { ConflictError, NotFoundError } from '../../../src/http/errors.js';
import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { Lang } from '../../../src/i18n/lang.js';
import { getPublicTicket, openTicket, postCustomerMessage } from '../../../src/modules/tickets/index.js';
import {
  type FormInput,
  formChallenge,
  formRefusal,
  formSolution,
  formToken,
  INVOICE_ID,
  idOf,
  isEmail,
  noErrors,
  type PlacedErrors,
  placeErrors,
  refusalErrors,
  textOf,
} from '../form.js';
import { SupportPage, type SupportValues } from '../pages/support.js';
import { type PublicTicketView, TicketPage } from '../pages/ticket.js';
import { sendPage } from '../render.js';
import { detailsOf } from '../shop-scope.js';
import { href, type Site } from '../site.js';

/**
 * Support: the "open a ticket" form (`/support`, 404 when the shop's design turns support off)
 * and the ticket page, reached by the link with the ticket's access key (`/tickets/:id?key=`).
 * An unknown ticket, a wrong key and another shop's ticket are the same 404 page. The key is a
 * secret in a URL: the request log redacts `key` (src/http/request-log.ts) and pages send no
 * Referer.
 */

const nonBlank = (text: string) => text.trim() !== '';
/** Length in characters (code points), as the API's schemas count it. */
const chars = (text: string) => [...text].length;

/** Where a service's error path belongs on the support form. */
function supportFieldOf(path: string): string | undefined {
  if (path === 'invoiceId') return 'invoice';
  if (path === 'email' || path === 'title' || path === 'message') return path;
  return undefined;
}

function supportProblems(values: SupportValues, lang: Lang): string[] {
  const problems: string[] = [];
  const email = values.email.trim();
  if (email === '') problems.push('email: is required');
  else if (!isEmail(email)) problems.push('email: must be an e-mail address');
  if (!nonBlank(values.title)) problems.push('title: is required');
  else if (chars(values.title.trim()) > 200) problems.push('title: must be at most 200 characters');
  if (!nonBlank(values.message)) problems.push('message: is required');
  else if (chars(values.message.trim()) > 5000) problems.push('message: must be at most 5,000 characters');
  const invoice = values.invoice.trim();
  if (invoice !== '' && !INVOICE_ID.test(invoice)) problems.push(`invoiceId: ${lang.t('support.notAnOrder')}`);
  return problems;
}

export const supportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const mail = { links: app.config, secrets: app.secrets };
  const hide = { hide: true };

  async function showSupport(reply: FastifyReply, site: Site, values: SupportValues, errors: PlacedErrors) {
    const details = await detailsOf(app, site);
    if (details.design.disableSupport) throw new NotFoundError('Support');
    return sendPage(
      reply,
      <SupportPage
        site={site}
        details={details}
        values={values}
        errors={errors}
        csrf={formToken(reply)}
        challenge={await formChallenge(reply.request, errors)}
      />,
      { status: errors.status ?? 200, private: true },
    );
  }

  app.get('/support', { schema: hide }, async (request, reply) => {
    const query = request.query as FormInput;
    const values = { email: '', title: '', message: '', invoice: textOf(query, 'invoice').slice(0, 64) };
    return showSupport(reply, request.site!, values, noErrors());
  });

  app.post('/support', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const input = request.body as FormInput;
    const values: SupportValues = {
      email: textOf(input, 'email'),
      title: textOf(input, 'title'),
      message: textOf(input, 'message'),
      invoice: textOf(input, 'invoice'),
    };
    const details = await detailsOf(app, site);
    if (details.design.disableSupport) throw new NotFoundError('Support');
    const problems = supportProblems(values, request.lang!);
    if (problems.length > 0)
      return showSupport(reply, site, values, {
        ...placeErrors(request.lang!, problems, supportFieldOf, request.lang!.t('form.someCorrections')),
        status: 400,
      });
    let ticket: { id: number; accessKey: string };
    try {
      const body = {
        email: values.email.trim(),
        title: values.title,
        message: values.message,
        invoiceId: values.invoice.trim() || null,
        key: null,
      };
      await app.challenges.admit(site.shop.id, request.ip, formSolution(input));
      ticket = await openTicket(
        ctx,
        site.shop.id,
        body,
        mail,
        'unlocked',
        { limits: app.passwordGuesses, ip: request.ip },
        request.lang!.locale,
      );
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      return showSupport(reply, site, values, refusalErrors(request.lang!, refused, supportFieldOf));
    }
    return reply.redirect(href(site, storefrontPaths.ticket(ticket.id, ticket.accessKey)), 303);
  });

  /** The ticket of this shop that this key opens; anything else is the 404 page. */
  async function ticketOf(site: Site, ticketId: number | undefined, key: string): Promise<PublicTicketView> {
    if (ticketId === undefined || key === '' || key.length > 128) throw new NotFoundError('Ticket');
    const ticket = await getPublicTicket(ctx, ticketId, key);
    if (ticket.shopId !== site.shop.id) throw new NotFoundError('Ticket');
    return ticket;
  }

  async function showTicket(
    reply: FastifyReply,
    site: Site,
    ticket: PublicTicketView,
    key: string,
    reply_: { text: string; errors: PlacedErrors },
  ) {
    return sendPage(
      reply,
      <TicketPage
        site={site}
        details={await detailsOf(app, site)}
        ticket={ticket}
        accessKey={key}
        csrf={formToken(reply)}
        reply={reply_.text}
        errors={reply_.errors}
      />,
      { status: reply_.errors.status ?? 200, private: true },
    );
  }

  app.get<{ Params: { ticketId: string } }>('/tickets/:ticketId', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const key = textOf(request.query as FormInput, 'key');
    const ticket = await ticketOf(site, idOf(request.params, 'ticketId'), key);
    return showTicket(reply, site, ticket, key, { text: '', errors: noErrors() });
  });

  app.post<{ Params: { ticketId: string } }>('/tickets/:ticketId/reply', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const input = request.body as FormInput;
    const key = textOf(input, 'key');
    const text = textOf(input, 'message');
    const ticket = await ticketOf(site, idOf(request.params, 'ticketId'), key);
    const fieldOf = (path: string) => (path === 'content' || path === 'message' ? 'message' : undefined);
    let problem: string | undefined;
    if (!nonBlank(text)) problem = 'message: is required';
    else if (chars(text.trim()) > 5000) problem = 'message: must be at most 5,000 characters';
    if (problem)
      return showTicket(reply, site, ticket, key, {
        text,
        errors: { ...placeErrors(request.lang!, [problem], fieldOf), status: 400 },
      });
    try {
      await postCustomerMessage(ctx, ticket.id, key, text);
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      // Closed meanwhile: the page now says so, without a form.
      const current = err instanceof ConflictError ? await ticketOf(site, ticket.id, key) : ticket;
      return showTicket(reply, site, current, key, {
        text,
        errors: { ...placeErrors(request.lang!, refused.errors, fieldOf, refused.message), status: refused.statusCode },
      });
    }
    return reply.redirect(href(site, storefrontPaths.ticket(ticket.id, key)), 303);
  });
};
