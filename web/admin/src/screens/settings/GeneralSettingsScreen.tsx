import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type Settings, useSettings } from '../../api/queries/settings';
import { useShopId } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { CheckField, Field } from '../../ui/Field';
import { Badge, LoadError, Loading, Page } from '../../ui/Page';
import { orNull, SettingsSection, useSettingSave } from './section';
import './settings.css';

type Currency = BodyOf<'PUT /self/{shopId}/settings/currency'>['currency'];

export default function GeneralSettingsScreen() {
  const settings = useSettings(useShopId());
  return (
    <Page title="General settings">
      {settings.isLoading ? <Loading /> : null}
      {settings.error ? <LoadError error={settings.error} retry={() => settings.refetch()} /> : null}
      {settings.data ? <GeneralForms settings={settings.data} /> : null}
    </Page>
  );
}

function GeneralForms({ settings }: { settings: Settings }) {
  return (
    <div className="settings-sections">
      <NameSection settings={settings} />
      <StatusSection settings={settings} />
      <AddressSection settings={settings} />
      <DomainSection settings={settings} />
      <CurrencySection settings={settings} />
      <TimezoneSection settings={settings} />
      <PasswordSection settings={settings} />
      <InvoicesSection settings={settings} />
      <AffiliateSection settings={settings} />
      <PopupSection settings={settings} />
      <TermsSection settings={settings} />
    </div>
  );
}

type Props = { settings: Settings };
const path = (shopId: number) => ({ params: { path: { shopId } } });

function NameSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/name',
    defaultValues: { newName: settings.name },
    toBody: (values) => values,
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/name'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/name', { ...path(shopId), body })),
  );
  return (
    <SettingsSection title="Shop name" form={form} mutation={save}>
      <Field label="Shop name" error={form.problem('newName')}>
        {(ids) => <input {...ids} {...form.register('newName')} className="input" maxLength={64} />}
      </Field>
    </SettingsSection>
  );
}

function StatusSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/status',
    defaultValues: { onHold: settings.onHold },
    toBody: (values) => values,
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/status'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/status', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Shop status"
      description="A shop on hold still shows its pages but refuses every checkout."
      form={form}
      mutation={save}
    >
      <p>Now: {settings.onHold ? <Badge tone="warn">On hold</Badge> : <Badge tone="ok">Open</Badge>}</p>
      <CheckField {...form.register('onHold')} error={form.problem('onHold')}>
        Put the shop on hold
      </CheckField>
    </SettingsSection>
  );
}

function AddressSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/subdomain',
    defaultValues: { newSubDomain: settings.subdomain },
    toBody: (values) => ({ newSubDomain: values.newSubDomain.trim() }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/subdomain'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/subdomain', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Subdomain"
      description={
        <>
          The storefront is at{' '}
          <a href={settings.storefrontUrl} target="_blank" rel="noreferrer">
            {settings.storefrontUrl}
          </a>
          . Changing the subdomain changes that address: old links stop working.
        </>
      }
      form={form}
      mutation={save}
    >
      <Field
        label="Subdomain"
        error={form.problem('newSubDomain')}
        hint="3–32 lower-case letters, digits and inner hyphens."
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('newSubDomain')}
            className="input"
            maxLength={32}
            autoCapitalize="none"
            spellCheck={false}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function DomainSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/domain',
    defaultValues: { domain: settings.customDomain ?? '' },
    toBody: (values) => ({ domain: orNull(values.domain.trim()) }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/domain'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/domain', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Custom domain"
      description="Point the domain's DNS at this server; the storefront is then served at its root and every link shopd writes uses it. Leave empty to remove it."
      form={form}
      mutation={save}
      extra={
        settings.customDomain ? (
          <button
            type="button"
            className="btn"
            disabled={save.isPending}
            onClick={() => {
              form.setValue('domain', '');
              save.mutate({ domain: null });
            }}
          >
            Remove domain
          </button>
        ) : null
      }
    >
      <Field label="Custom domain" error={form.problem('domain')} hint="For example shop.example.com">
        {(ids) => (
          <input
            {...ids}
            {...form.register('domain')}
            className="input"
            maxLength={254}
            autoCapitalize="none"
            spellCheck={false}
            placeholder="shop.example.com"
          />
        )}
      </Field>
      {settings.domainVerification ? <DomainVerification verification={settings.domainVerification} /> : null}
    </SettingsSection>
  );
}

/**
 * The proof the custom domain is the owner's: the TXT record to create, whether it was found, and
 * a check on demand. Until it is found the server gets no certificate for the domain.
 */
function DomainVerification({ verification }: { verification: NonNullable<Settings['domainVerification']> }) {
  const shopId = useShopId();
  const verify = useSettingSave(
    () => unwrap(api.POST('/self/{shopId}/settings/domain/verify', { ...path(shopId) })),
    'Domain verified',
  );
  return (
    <section className="settings-domain-verification" aria-label="Domain verification">
      <p>
        {verification.verified ? <Badge tone="ok">Verified</Badge> : <Badge tone="warn">Not verified</Badge>}{' '}
        {verification.verified
          ? 'The DNS record was found: the storefront can be served over https at this domain.'
          : 'Create this DNS record at your domain’s DNS provider. Until it is found, the server gets no certificate for the domain.'}
      </p>
      <dl className="orders-facts">
        <dt>Type</dt>
        <dd>
          <code>{verification.type}</code>
        </dd>
        <dt>Name</dt>
        <dd>
          <code>{verification.record}</code>
        </dd>
        <dt>Value</dt>
        <dd>
          {verification.value ? (
            <code>{verification.value}</code>
          ) : (
            <span className="muted">Save the domain again to get a value.</span>
          )}
        </dd>
      </dl>
      {verification.verified ? null : (
        <p>
          <button type="button" className="btn" disabled={verify.isPending} onClick={() => verify.mutate(undefined)}>
            Check now
          </button>{' '}
          {verify.error ? (
            <span role="alert" className="muted small">
              {verify.error instanceof Error ? verify.error.message : 'The record was not found.'}
            </span>
          ) : null}
        </p>
      )}
    </section>
  );
}

/** The ISO 4217 codes this browser knows, as suggestions; the server decides which it accepts. */
const knownCurrencies: string[] =
  typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : [];

function CurrencySection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/currency',
    defaultValues: { currency: settings.currency as string },
    // The schema names the codes it takes (a problem beside the field otherwise).
    toBody: (values) => ({ currency: values.currency.trim().toUpperCase() as Currency }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/currency'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/currency', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Currency"
      description="Prices, coupon amounts and customer balances keep their numbers in the new currency; past orders keep theirs."
      form={form}
      mutation={save}
    >
      <Field label="Currency" error={form.problem('currency')} hint="An ISO 4217 code such as USD or EUR.">
        {(ids) => (
          <>
            <input
              {...ids}
              {...form.register('currency')}
              className="input"
              list="settings-currencies"
              maxLength={3}
              autoCapitalize="characters"
            />
            <datalist id="settings-currencies">
              {knownCurrencies.map((code) => (
                <option key={code} value={code} />
              ))}
            </datalist>
          </>
        )}
      </Field>
    </SettingsSection>
  );
}

/** `+05:30` for 330 minutes east of UTC. */
function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '−' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Every quarter hour the API accepts (−12:00 to +14:00), and the shop's own offset if it is not one. */
function offsetChoices(current: number): number[] {
  const choices: number[] = [];
  for (let m = -720; m <= 840; m += 15) choices.push(m);
  if (!choices.includes(current)) choices.push(current);
  return choices.sort((a, b) => a - b);
}

function TimezoneSection({ settings }: Props) {
  const shopId = useShopId();
  const browserOffset = -new Date().getTimezoneOffset();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/timezone',
    defaultValues: { utcTimezoneOffset: String(settings.utcTimezoneOffset) },
    toBody: (values) => ({ utcTimezoneOffset: Number(values.utcTimezoneOffset) }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/timezone'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/timezone', { ...path(shopId), body })),
  );
  const offset = Number(form.watch('utcTimezoneOffset'));
  return (
    <SettingsSection
      title="Time zone"
      description="Dashboards and date filters count days in this offset. After a change the dashboards are recounted in the background for a while."
      form={form}
      mutation={save}
      extra={
        browserOffset !== offset ? (
          <button
            type="button"
            className="btn"
            onClick={() => form.setValue('utcTimezoneOffset', String(browserOffset))}
          >
            Use this computer's ({offsetLabel(browserOffset)})
          </button>
        ) : null
      }
    >
      <Field label="UTC offset" error={form.problem('utcTimezoneOffset')}>
        {(ids) => (
          <select {...ids} {...form.register('utcTimezoneOffset')} className="input">
            {offsetChoices(settings.utcTimezoneOffset).map((m) => (
              <option key={m} value={m}>
                {offsetLabel(m)}
              </option>
            ))}
          </select>
        )}
      </Field>
    </SettingsSection>
  );
}

function PasswordSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/password',
    defaultValues: { password: '' },
    toBody: (values) => values,
  });
  const save = useSettingSave(
    (body: BodyOf<'PUT /self/{shopId}/settings/password'>) =>
      unwrap(api.PUT('/self/{shopId}/settings/password', { ...path(shopId), body })),
    'Storefront password saved',
  );
  const send = (body: BodyOf<'PUT /self/{shopId}/settings/password'>) =>
    save.mutateAsync(body).then(() => form.reset());
  return (
    <SettingsSection
      title="Storefront password"
      description="With a password, buyers must enter it before they see the storefront."
      form={form}
      mutation={save}
      send={send}
      submitLabel={settings.passwordProtected ? 'Change password' : 'Set password'}
      submitDisabled={form.watch('password') === ''}
      extra={
        settings.passwordProtected ? (
          <button
            type="button"
            className="btn btn-danger"
            disabled={save.isPending}
            onClick={() => {
              if (window.confirm('Remove the storefront password? Anyone can then see the storefront.'))
                send({ password: null }).catch(() => undefined);
            }}
          >
            Remove password
          </button>
        ) : null
      }
    >
      <p>
        Now:{' '}
        {settings.passwordProtected ? <Badge tone="info">Password protected</Badge> : <Badge>Open to everyone</Badge>}
      </p>
      <Field
        label={settings.passwordProtected ? 'New storefront password' : 'Storefront password'}
        error={form.problem('password')}
        hint="4–128 characters."
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('password')}
            className="input"
            type="password"
            autoComplete="new-password"
            maxLength={128}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function InvoicesSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/invoices',
    defaultValues: { lifetimeMinutes: String(settings.invoiceLifetimeMinutes) },
    toBody: (values) => ({ lifetimeMinutes: Number(values.lifetimeMinutes) }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/invoices'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/invoices', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Invoice lifetime"
      description="How long a pending invoice holds its stock before it expires."
      form={form}
      mutation={save}
    >
      <Field label="Invoice lifetime (minutes)" error={form.problem('lifetimeMinutes')} hint="5 to 10080 (a week).">
        {(ids) => (
          <input
            {...ids}
            {...form.register('lifetimeMinutes')}
            className="input"
            type="number"
            inputMode="numeric"
            min={5}
            max={10080}
            step={1}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function AffiliateSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/affiliate',
    defaultValues: { percentage: String(settings.affiliatePercentage) },
    toBody: (values) => ({ percentage: Number(values.percentage) }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/affiliate'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/affiliate', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Affiliate commission"
      description="Paid to the customer who referred a buyer, on each completed order. 0 turns commissions off."
      form={form}
      mutation={save}
    >
      <Field label="Commission (%)" error={form.problem('percentage')} hint="0 to 100, at most 2 decimals.">
        {(ids) => (
          <input
            {...ids}
            {...form.register('percentage')}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            max={100}
            step={0.01}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function PopupSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/popup',
    defaultValues: { message: settings.popup ?? '' },
    toBody: (values) => ({ message: orNull(values.message) }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/popup'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/popup', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Storefront popup"
      description="A message shown to visitors when they open the storefront. Leave empty for none."
      form={form}
      mutation={save}
    >
      <Field label="Popup message" error={form.problem('message')} hint={`${form.watch('message').length} / 2000`}>
        {(ids) => <textarea {...ids} {...form.register('message')} className="input" maxLength={2000} />}
      </Field>
    </SettingsSection>
  );
}

function TermsSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/terms',
    defaultValues: { terms: settings.terms ?? '' },
    toBody: (values) => ({ terms: orNull(values.terms) }),
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/terms'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/terms', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title="Terms of service"
      description="Shown on the storefront's terms page. Leave empty for none."
      form={form}
      mutation={save}
    >
      <Field label="Terms of service" error={form.problem('terms')} hint={`${form.watch('terms').length} / 50000`}>
        {(ids) => <textarea {...ids} {...form.register('terms')} className="input settings-terms" maxLength={50000} />}
      </Field>
    </SettingsSection>
  );
}
