import { ChallengeField, Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

/** The "open a ticket" form's values; its names on the wire: `email, title, message, invoice`. */
export interface SupportValues {
  email: string;
  title: string;
  message: string;
  invoice: string;
}

export function SupportPage(props: {
  site: Site;
  details: ShopDetails;
  values: SupportValues;
  errors: PlacedErrors;
  csrf: string;
  /** The shop asks this client for a proof-of-work challenge (and what was wrong with the last solution). */
  challenge?: { error?: string | undefined } | null | undefined;
}) {
  const { site, details, values, errors } = props;
  const { t } = useLang();
  const e = errors.fields;
  const hasErrors = Object.keys(e).length > 0 || errors.other.length > 0 || errors.message !== undefined;
  return (
    <Layout site={site} details={details} title={t('support.title')} noindex>
      <section class="narrow">
        <h1>{t('support.heading')}</h1>
        <p>{t('support.intro')}</p>
        <form method="post" action={href(site, '/support')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          {hasErrors ? <FormErrors errors={errors.other} message={errors.message ?? t('form.correct')} /> : null}
          <Field id="email" label={t('support.email')} error={e.email} hint={t('support.emailHint')}>
            <input
              id="email"
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={254}
              value={values.email}
              {...describedBy('email', { error: e.email, hint: true })}
            />
          </Field>
          <Field id="title" label={t('support.subject')} error={e.title}>
            <input
              id="title"
              name="title"
              type="text"
              required
              maxLength={200}
              value={values.title}
              {...describedBy('title', { error: e.title })}
            />
          </Field>
          <Field id="message" label={t('support.message')} error={e.message}>
            <textarea
              id="message"
              name="message"
              rows={6}
              required
              maxLength={5000}
              value={values.message}
              {...describedBy('message', { error: e.message })}
            />
          </Field>
          <Field id="invoice" label={t('support.invoice')} error={e.invoice} hint={t('support.invoiceHint')}>
            <input
              id="invoice"
              name="invoice"
              type="text"
              maxLength={64}
              autoComplete="off"
              value={values.invoice}
              {...describedBy('invoice', { error: e.invoice, hint: true })}
            />
          </Field>
          {props.challenge ? <ChallengeField shopId={site.shop.id} error={props.challenge.error} /> : null}
          <button type="submit" class="button primary">
            {t('support.send')}
          </button>
        </form>
      </section>
    </Layout>
  );
}
