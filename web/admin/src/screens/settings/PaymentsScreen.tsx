import type { BodyOperation } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type Settings, useSettings } from '../../api/queries/settings';
import { useShop, useShopId } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { CheckField, Field } from '../../ui/Field';
import { Badge, LoadError, Loading, Page } from '../../ui/Page';
import { gatewayLabel } from '../orders/orders';
import { CopyButton } from './copy';
import { SettingsSection, useSettingSave } from './section';
import './settings.css';

type Payments = Settings['payments'];
type Provider = keyof Payments;
type PaymentPath = `/self/{shopId}/settings/payments/${Provider}`;
type View = Payments[Provider];

/** What every gateway's view has; the rest of its keys are its own fields. */
const commonKeys = new Set(['enabled', 'configured', 'secretsUnreadable', 'gatewayRules']);
/** The API masks these on every read (`••••1234`) and never sends them back. */
const secretNames = new Set(['apiKey', 'secretKey', 'webhookSecret', 'privateKey']);
const MASK = '••••';

const fieldLabels: Record<string, string> = strings.payments.fieldLabels;

/** `virtual-payments` → `Virtual payments`; `receiveCurrency` → `Receive currency`. */
function humanize(name: string): string {
  const words = name
    .replace(/[-_]/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Gateways this server has no adapter for (shops/payments.ts `unsupportedProviders`): their
 * settings are kept, but enabling them is refused (422).
 */
const unsupported = new Set<string>(['virtual-payments', 'cardreader']);

/**
 * The gateways whose provider tells shopd when the money arrives: the callback URL the owner pastes
 * into the provider's dashboard (payments/routes.ts) and the events shopd acts on.
 */
const callbacks: Partial<Record<Provider, { dashboard: string; events: string[] }>> = {
  cardconnect: {
    dashboard: strings.payments.stripesDashboardDevelopersWebhooks,
    events: [
      'checkout.session.completed',
      'checkout.session.expired',
      'checkout.session.async_payment_succeeded',
      'checkout.session.async_payment_failed',
    ],
  },
  cryptocommerce: {
    dashboard: strings.payments.theCryptoProvidersDashboard,
    events: ['charge:confirmed', 'charge:failed', 'charge:pending', 'charge:delayed', 'charge:resolved'],
  },
};

/**
 * The server's public address (PUBLIC_URL): the shop's storefront is `{PUBLIC_URL}/s/{subdomain}`
 * unless it has a domain of its own; then this page's origin, the server the admin is served from.
 */
function useServerBase(): { base: string; guessed: boolean } {
  const { shop } = useShop();
  const suffix = shop ? `/s/${shop.subdomain}` : null;
  if (shop && suffix && shop.storefrontUrl.endsWith(suffix))
    return { base: shop.storefrontUrl.slice(0, -suffix.length), guessed: false };
  return { base: window.location.origin, guessed: true };
}

function fieldsOf(view: View): string[] {
  return Object.keys(view).filter((key) => !commonKeys.has(key));
}

function isSecret(name: string, value: unknown): boolean {
  return secretNames.has(name) || (typeof value === 'string' && value.startsWith(MASK));
}

export default function PaymentsScreen() {
  const settings = useSettings(useShopId());
  return (
    <Page title={strings.payments.paymentSettings}>
      <p className="muted">{strings.payments.eachGatewayIsSaved}</p>
      {settings.isLoading ? <Loading /> : null}
      {settings.error ? <LoadError error={settings.error} retry={() => settings.refetch()} /> : null}
      {settings.data ? (
        <div className="settings-sections">
          {(Object.keys(settings.data.payments) as Provider[]).map((provider) => (
            <GatewayForm key={provider} provider={provider} view={settings.data.payments[provider]} />
          ))}
        </div>
      ) : null}
    </Page>
  );
}

type GatewayValues = {
  enabled: boolean;
  blockVpn: boolean;
  /** The gateway's own fields, by name; a secret's is what the owner types anew ('' keeps the stored one). */
  fields: Record<string, string>;
  /** The stored secrets the owner asked to remove. */
  cleared: Record<string, boolean>;
};

/** The provider a hosted method pays through, said on its settings (the method's name stays one). */
const providerOf: Partial<Record<string, string>> = strings.payments.providerOf;

function GatewayForm({ provider, view }: { provider: Provider; view: View }) {
  const shopId = useShopId();
  const fields = fieldsOf(view);
  const stored = view as unknown as Record<string, string | null>;
  // The method's one name (the buyer reads the same); the provider behind it is said below the switch.
  const title = gatewayLabel(provider);
  const supported = !unsupported.has(provider);
  const form = useBodyForm({
    operation: `PUT /self/{shopId}/settings/payments/${provider}` as BodyOperation,
    defaultValues: {
      enabled: view.enabled,
      blockVpn: view.gatewayRules.blockVpn,
      // Public fields start at their stored value; secret fields always start empty (= keep).
      fields: Object.fromEntries(
        fields.map((name) => [name, isSecret(name, stored[name]) ? '' : (stored[name] ?? '')]),
      ),
      cleared: {},
    } as GatewayValues,
    toBody: (values: GatewayValues) => {
      // An unsupported gateway's switch stays as it is (off): sending it on is refused.
      const body: Record<string, unknown> = supported
        ? { enabled: values.enabled, gatewayRules: { blockVpn: values.blockVpn } }
        : { gatewayRules: { blockVpn: values.blockVpn } };
      for (const name of fields) {
        const value = values.fields[name] ?? '';
        if (isSecret(name, stored[name])) {
          // A secret is sent only when typed anew, or null when the owner removes it.
          if (values.cleared[name]) body[name] = null;
          else if (value !== '') body[name] = value;
        } else {
          body[name] = value.trim() === '' ? null : value.trim();
        }
      }
      // Every gateway's body is a partial update of its own fields, built from its own view.
      return body as never;
    },
    fieldOf: (path) => {
      if (path === 'enabled') return 'enabled';
      if (path === 'gatewayRules' || path.startsWith('gatewayRules.')) return 'blockVpn';
      const name = path.split(/[.[]/)[0]!;
      return fields.includes(name) ? `fields.${name}` : undefined;
    },
  });
  const save = useSettingSave(
    (body: Record<string, unknown>) =>
      unwrap(
        api.PUT(`/self/{shopId}/settings/payments/${provider}` as PaymentPath, {
          params: { path: { shopId } },
          body: body as never,
        }),
      ),
    strings.payments.saved(title),
  );
  // Saved: the secrets are stored, their boxes empty again.
  const send = (body: Record<string, unknown>) =>
    save.mutateAsync(body).then(() => {
      const values = form.getValues();
      form.reset({
        ...values,
        fields: Object.fromEntries(Object.entries(values.fields).map(([k, v]) => [k, isSecret(k, stored[k]) ? '' : v])),
        cleared: {},
      });
    });
  const cleared = form.watch('cleared');

  const status = !supported ? (
    <Badge tone="muted">{strings.payments.notSupportedByThis}</Badge>
  ) : view.secretsUnreadable ? (
    <Badge tone="bad">{strings.payments.secretsUnreadable}</Badge>
  ) : view.enabled ? (
    <Badge tone="ok">{strings.common.enabled}</Badge>
  ) : view.configured ? (
    <Badge tone="info">{strings.payments.configuredDisabled}</Badge>
  ) : (
    <Badge>{strings.payments.notConfigured}</Badge>
  );

  return (
    <SettingsSection title={title} form={form} mutation={save} send={send} description={status}>
      {view.secretsUnreadable ? (
        <p className="alert alert-error small">{strings.payments.theStoredSecretsCannot}</p>
      ) : null}
      {supported ? null : <p className="muted small">{strings.payments.thisServerCannotTake(title)}</p>}
      <CheckField {...form.register('enabled')} disabled={!supported} error={form.problem('enabled')}>
        {strings.payments.enable(title)}
      </CheckField>
      <CheckField {...form.register('blockVpn')} error={form.problem('blockVpn')}>
        {strings.payments.blockVpnBuyers}
      </CheckField>
      {providerOf[provider] ? (
        <p className="muted small">{strings.payments.buyersPayOnS(providerOf[provider])}</p>
      ) : null}
      {callbacks[provider] ? <CallbackInfo provider={provider} title={title} /> : null}
      {fields.length === 0 ? <p className="muted small">{strings.payments.thisGatewayHasNo}</p> : null}
      {fields.map((name) => {
        const label = fieldLabels[name] ?? humanize(name);
        const secret = isSecret(name, stored[name]);
        const current = stored[name];
        const error = form.problem(`fields.${name}`);
        if (!secret)
          return (
            <Field key={name} label={label} error={error}>
              {(ids) => (
                <input
                  {...ids}
                  {...form.register(`fields.${name}`)}
                  className="input"
                  type={name === 'email' ? 'email' : 'text'}
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
          );
        const removing = cleared[name] === true;
        return (
          <Field
            key={name}
            label={label}
            error={error}
            hint={
              removing
                ? strings.payments.willBeRemovedWhen
                : current
                  ? strings.payments.storedLeaveEmptyTo(current)
                  : strings.payments.notSet
            }
          >
            {(ids) => (
              <div className="row">
                <input
                  {...ids}
                  {...form.register(`fields.${name}`)}
                  className="input grow"
                  type="password"
                  autoComplete="new-password"
                  spellCheck={false}
                  placeholder={current ? strings.common.unchanged : ''}
                  disabled={removing}
                />
                {current ? (
                  <button
                    type="button"
                    className="btn btn-ghost"
                    aria-pressed={removing}
                    aria-describedby={ids.id}
                    title={
                      removing
                        ? strings.payments.keepTheStored(label.toLowerCase())
                        : strings.payments.removeTheStored(label.toLowerCase())
                    }
                    onClick={() => form.setValue(`cleared.${name}`, !removing)}
                  >
                    {removing ? strings.payments.keepStoredValue : strings.payments.removeStoredValue}
                  </button>
                ) : null}
              </div>
            )}
          </Field>
        );
      })}
    </SettingsSection>
  );
}

/** Where the provider sends its payment events, and which ones to send, for its dashboard. */
function CallbackInfo({ provider, title }: { provider: Provider; title: string }) {
  const shopId = useShopId();
  const { base, guessed } = useServerBase();
  const callback = callbacks[provider];
  if (!callback) return null;
  const url = `${base}/v2/public/payments/${provider}/${shopId}/webhook`;
  return (
    <div className="stack settings-callback">
      <Field
        label={strings.payments.callbackUrl(title)}
        hint={
          <>
            {strings.payments.addItAsAn(callback.dashboard)}
            {guessed ? strings.payments.builtFromThisPages : null}
          </>
        }
      >
        {(ids) => (
          // A text area, so that the whole address shows, wrapped, at any width.
          <textarea
            {...ids}
            className="input settings-secret settings-callback-url"
            readOnly
            rows={2}
            value={url}
            onFocus={(e) => e.target.select()}
          />
        )}
      </Field>
      <div className="row">
        <CopyButton text={url} label={strings.payments.copyUrl} />
      </div>
      <div>
        <p className="settings-legend">{strings.payments.eventsToSend}</p>
        <ul className="settings-callback-events">
          {callback.events.map((event) => (
            <li key={event}>
              <code>{event}</code>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
