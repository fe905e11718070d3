import { Field } from '../components.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

/** The prompt of a password-protected shop; `next` is where the buyer was going. */
export function PasswordPage(props: { site: Site; details: ShopDetails; next: string; csrf: string; error?: string }) {
  const { site, details } = props;
  const { t } = useLang();
  return (
    <Layout site={site} details={details} title={t('password.title')} noindex>
      <section class="narrow">
        <h1>{t('password.heading')}</h1>
        <p>{t('password.intro')}</p>
        <form method="post" action={href(site, '/unlock')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <Field id="password" label={t('password.label')} error={props.error}>
            <input
              id="password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              maxLength={128}
              aria-invalid={props.error ? 'true' : undefined}
              aria-describedby={props.error ? 'password-error' : undefined}
            />
          </Field>
          <button type="submit" class="button primary">
            {t('password.enter')}
          </button>
        </form>
      </section>
    </Layout>
  );
}
