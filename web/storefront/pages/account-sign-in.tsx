import { ChallengeField, Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
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
  const e = errors.fields;
  return (
    <Layout site={site} details={details} title="Sign in" noindex>
      <section class="narrow">
        <h1>Sign in to your account</h1>
        <p>
          See your orders and their items, and pay with your store balance. No password: we e-mail you a code to sign in
          with.
        </p>
        <form method="post" action={href(site, '/account/sign-in')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          {errors.message || errors.other.length > 0 ? (
            <FormErrors errors={errors.other} message={errors.message} />
          ) : null}
          <Field id="email" label="E-mail" error={e.email} hint="The address you ordered with.">
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
            E-mail me a code
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** Step 2: the code from the mail. The address travels in a hidden field; the code only ever in the POST body. */
export function VerifyPage(props: FormProps & { email: string; minutes: number }) {
  const { site, details, errors } = props;
  const e = errors.fields;
  return (
    <Layout site={site} details={details} title="Enter your code" noindex>
      <section class="narrow">
        <h1>Check your e-mail</h1>
        <p>
          If <strong>{props.email}</strong> can receive mail, a 6-digit code is on its way to it. It works for{' '}
          {props.minutes} minutes.
        </p>
        <form method="post" action={href(site, '/account/verify')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="email" value={props.email} />
          {errors.message || errors.other.length > 0 ? (
            <FormErrors errors={errors.other} message={errors.message} />
          ) : null}
          <Field id="code" label="Code" error={e.code} hint="The 6 digits from the e-mail.">
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
            Sign in
          </button>
        </form>
        <p class="muted small">
          No mail? Check the spam folder, or <a href={href(site, '/account')}>ask for a new code</a>.
        </p>
      </section>
    </Layout>
  );
}
