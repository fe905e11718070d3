import { Field } from '../components.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

/** The prompt of a password-protected shop; `next` is where the buyer was going. */
export function PasswordPage(props: { site: Site; details: ShopDetails; next: string; csrf: string; error?: string }) {
  const { site, details } = props;
  return (
    <Layout site={site} details={details} title="Password required" noindex>
      <section class="narrow">
        <h1>This shop is private</h1>
        <p>Enter the password the shop gave you to see its products.</p>
        <form method="post" action={href(site, '/unlock')}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <Field id="password" label="Password" error={props.error}>
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
            Enter the shop
          </button>
        </form>
      </section>
    </Layout>
  );
}
