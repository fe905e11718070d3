import { ChallengeField, Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

interface FormProps {
  site: Site;
  details: ShopDetails;
  csrf: string;
  errors: PlacedErrors;
}

/** Step 1 of signing in: the buyer's e-mail address, to which a one-time code is mailed. */
export function SignInPage(
  props: FormProps & { email: string; challenge?: { error?: string | undefined } | null | undefined },
) {
  const { site, details, errors } = props;
  const { t } = useLang();
  const e = errors.fields;
  return (
    <Layout site={site} details={details} title={t('signIn.title')} noindex>
      <section class="narrow">
        <h1>{t('signIn.heading')}</h1>
        <p>{t('signIn.intro')}</p>
        <form method="post" action={href(site, '/account/sign-in')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          {errors.message || errors.other.length > 0 ? (
            <FormErrors errors={errors.other} message={errors.message} />
          ) : null}
          <Field id="email" label={t('signIn.email')} error={e.email} hint={t('signIn.emailHint')}>
            <input
              id="email"
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={254}
              value={props.email}
              {...describedBy('email', { error: e.email, hint: true })}
            />
          </Field>
          {props.challenge ? <ChallengeField shopId={site.shop.id} error={props.challenge.error} /> : null}
          <button type="submit" class="button primary">
            {t('signIn.send')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** Step 2: the code from the mail. The address travels in a hidden field; the code only ever in the POST body. */
export function VerifyPage(props: FormProps & { email: string; minutes: number }) {
  const { site, details, errors } = props;
  const lang = useLang();
  const { t } = lang;
  const e = errors.fields;
  return (
    <Layout site={site} details={details} title={t('verify.title')} noindex>
      <section class="narrow">
        <h1>{t('verify.heading')}</h1>
        <p>
          {lang.rich('verify.intro', {
            email: props.email,
            minutes: props.minutes,
            b: (chunks) => <strong key="email">{chunks}</strong>,
          })}
        </p>
        <form method="post" action={href(site, '/account/verify')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="email" value={props.email} />
          {errors.message || errors.other.length > 0 ? (
            <FormErrors errors={errors.other} message={errors.message} />
          ) : null}
          <Field id="code" label={t('verify.code')} error={e.code} hint={t('verify.codeHint')}>
            <input
              id="code"
              name="code"
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              required
              {...describedBy('code', { error: e.code, hint: true })}
            />
          </Field>
          <button type="submit" class="button primary">
            {t('verify.submit')}
          </button>
        </form>
        <p class="muted small">
          {lang.rich('verify.noMail', {
            link: (chunks) => (
              <a key="new" href={href(site, '/account')}>
                {chunks}
              </a>
            ),
          })}
        </p>
      </section>
    </Layout>
  );
}
