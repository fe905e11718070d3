import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { Field, fieldError } from '../../ui/Field';
import { Badge, LoadError, Loading, Page } from '../../ui/Page';
import { orNull, type Settings, SettingsSection, useSettingSave, useSettings } from './section';
import './settings.css';

type Currency =
  paths['/self/{shopId}/settings/currency']['put']['requestBody']['content']['application/json']['currency'];

export default function GeneralSettingsScreen() {
  const settings = useSettings();
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
  const [name, setName] = useState(settings.name);
  const save = useSettingSave((newName: string) =>
    unwrap(api.PUT('/self/{shopId}/settings/name', { ...path(shopId), body: { newName } })),
  );
  return (
    <SettingsSection title="Shop name" mutation={save} fields={['newName']} onSubmit={() => save.mutate(name)}>
      <Field label="Shop name" error={fieldError(save.error, 'newName')}>
        {(ids) => (
          <input {...ids} className="input" value={name} maxLength={64} onChange={(e) => setName(e.target.value)} />
        )}
      </Field>
    </SettingsSection>
  );
}

function StatusSection({ settings }: Props) {
  const shopId = useShopId();
  const [onHold, setOnHold] = useState(settings.onHold);
  const save = useSettingSave((value: boolean) =>
    unwrap(api.PUT('/self/{shopId}/settings/status', { ...path(shopId), body: { onHold: value } })),
  );
  return (
    <SettingsSection
      title="Shop status"
      description="A shop on hold still shows its pages but refuses every checkout."
      mutation={save}
      fields={['onHold']}
      onSubmit={() => save.mutate(onHold)}
    >
      <p>Now: {settings.onHold ? <Badge tone="warn">On hold</Badge> : <Badge tone="ok">Open</Badge>}</p>
      <label className="check">
        <input type="checkbox" checked={onHold} onChange={(e) => setOnHold(e.target.checked)} />
        Put the shop on hold
      </label>
      {fieldError(save.error, 'onHold') ? <p className="field-error">{fieldError(save.error, 'onHold')}</p> : null}
    </SettingsSection>
  );
}

function AddressSection({ settings }: Props) {
  const shopId = useShopId();
  const [subdomain, setSubdomain] = useState(settings.subdomain);
  const save = useSettingSave((newSubDomain: string) =>
    unwrap(api.PUT('/self/{shopId}/settings/subdomain', { ...path(shopId), body: { newSubDomain } })),
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
      mutation={save}
      fields={['newSubDomain']}
      onSubmit={() => save.mutate(subdomain.trim())}
    >
      <Field
        label="Subdomain"
        error={fieldError(save.error, 'newSubDomain')}
        hint="3–32 lower-case letters, digits and inner hyphens."
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            value={subdomain}
            maxLength={32}
            autoCapitalize="none"
            spellCheck={false}
            onChange={(e) => setSubdomain(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function DomainSection({ settings }: Props) {
  const shopId = useShopId();
  const [domain, setDomain] = useState(settings.customDomain ?? '');
  const save = useSettingSave((value: string | null) =>
    unwrap(api.PUT('/self/{shopId}/settings/domain', { ...path(shopId), body: { domain: value } })),
  );
  return (
    <SettingsSection
      title="Custom domain"
      description="Point the domain's DNS at this server; the storefront is then served at its root and every link shopd writes uses it. Leave empty to remove it."
      mutation={save}
      fields={['domain']}
      onSubmit={() => save.mutate(orNull(domain.trim()))}
      extra={
        settings.customDomain ? (
          <button
            type="button"
            className="btn"
            disabled={save.isPending}
            onClick={() => {
              setDomain('');
              save.mutate(null);
            }}
          >
            Remove domain
          </button>
        ) : null
      }
    >
      <Field label="Custom domain" error={fieldError(save.error, 'domain')} hint="For example shop.example.com">
        {(ids) => (
          <input
            {...ids}
            className="input"
            value={domain}
            maxLength={254}
            autoCapitalize="none"
            spellCheck={false}
            placeholder="shop.example.com"
            onChange={(e) => setDomain(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

/** The ISO 4217 codes this browser knows, as suggestions; the server decides which it accepts. */
const knownCurrencies: string[] =
  typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : [];

function CurrencySection({ settings }: Props) {
  const shopId = useShopId();
  const [currency, setCurrency] = useState(settings.currency);
  const save = useSettingSave((value: string) =>
    unwrap(
      api.PUT('/self/{shopId}/settings/currency', {
        ...path(shopId),
        // The server checks the code against its own list (a 400 beside the field otherwise).
        body: { currency: value as Currency },
      }),
    ),
  );
  return (
    <SettingsSection
      title="Currency"
      description="Prices, coupon amounts and customer balances keep their numbers in the new currency; past orders keep theirs."
      mutation={save}
      fields={['currency']}
      onSubmit={() => save.mutate(currency.trim().toUpperCase())}
    >
      <Field label="Currency" error={fieldError(save.error, 'currency')} hint="An ISO 4217 code such as USD or EUR.">
        {(ids) => (
          <>
            <input
              {...ids}
              className="input"
              list="settings-currencies"
              value={currency}
              maxLength={3}
              autoCapitalize="characters"
              onChange={(e) => setCurrency(e.target.value)}
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
  const [offset, setOffset] = useState(settings.utcTimezoneOffset);
  const browserOffset = -new Date().getTimezoneOffset();
  const save = useSettingSave((utcTimezoneOffset: number) =>
    unwrap(api.PUT('/self/{shopId}/settings/timezone', { ...path(shopId), body: { utcTimezoneOffset } })),
  );
  return (
    <SettingsSection
      title="Time zone"
      description="Dashboards and date filters count days in this offset. After a change the dashboards are recounted in the background for a while."
      mutation={save}
      fields={['utcTimezoneOffset']}
      onSubmit={() => save.mutate(offset)}
      extra={
        browserOffset !== offset ? (
          <button type="button" className="btn" onClick={() => setOffset(browserOffset)}>
            Use this computer's ({offsetLabel(browserOffset)})
          </button>
        ) : null
      }
    >
      <Field label="UTC offset" error={fieldError(save.error, 'utcTimezoneOffset')}>
        {(ids) => (
          <select {...ids} className="input" value={offset} onChange={(e) => setOffset(Number(e.target.value))}>
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
  const [password, setPassword] = useState('');
  const save = useSettingSave(
    (value: string | null) =>
      unwrap(api.PUT('/self/{shopId}/settings/password', { ...path(shopId), body: { password: value } })),
    'Storefront password saved',
  );
  const submit = (value: string | null) =>
    save.mutate(value, {
      onSuccess: () => setPassword(''),
    });
  return (
    <SettingsSection
      title="Storefront password"
      description="With a password, buyers must enter it before they see the storefront."
      mutation={save}
      fields={['password']}
      onSubmit={() => submit(password)}
      submitLabel={settings.passwordProtected ? 'Change password' : 'Set password'}
      submitDisabled={password === ''}
      extra={
        settings.passwordProtected ? (
          <button
            type="button"
            className="btn btn-danger"
            disabled={save.isPending}
            onClick={() => {
              if (window.confirm('Remove the storefront password? Anyone can then see the storefront.')) submit(null);
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
        error={fieldError(save.error, 'password')}
        hint="4–128 characters."
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="password"
            autoComplete="new-password"
            value={password}
            maxLength={128}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function InvoicesSection({ settings }: Props) {
  const shopId = useShopId();
  const [minutes, setMinutes] = useState(String(settings.invoiceLifetimeMinutes));
  const save = useSettingSave((lifetimeMinutes: number) =>
    unwrap(api.PUT('/self/{shopId}/settings/invoices', { ...path(shopId), body: { lifetimeMinutes } })),
  );
  return (
    <SettingsSection
      title="Invoice lifetime"
      description="How long a pending invoice holds its stock before it expires."
      mutation={save}
      fields={['lifetimeMinutes']}
      onSubmit={() => save.mutate(Number(minutes))}
    >
      <Field
        label="Invoice lifetime (minutes)"
        error={fieldError(save.error, 'lifetimeMinutes')}
        hint="5 to 10080 (a week)."
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="number"
            inputMode="numeric"
            min={5}
            max={10080}
            step={1}
            value={minutes}
            onChange={(e) => setMinutes(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function AffiliateSection({ settings }: Props) {
  const shopId = useShopId();
  const [percentage, setPercentage] = useState(String(settings.affiliatePercentage));
  const save = useSettingSave((value: number) =>
    unwrap(api.PUT('/self/{shopId}/settings/affiliate', { ...path(shopId), body: { percentage: value } })),
  );
  return (
    <SettingsSection
      title="Affiliate commission"
      description="Paid to the customer who referred a buyer, on each completed order. 0 turns commissions off."
      mutation={save}
      fields={['percentage']}
      onSubmit={() => save.mutate(Number(percentage))}
    >
      <Field label="Commission (%)" error={fieldError(save.error, 'percentage')} hint="0 to 100, at most 2 decimals.">
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            max={100}
            step={0.01}
            value={percentage}
            onChange={(e) => setPercentage(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function PopupSection({ settings }: Props) {
  const shopId = useShopId();
  const [message, setMessage] = useState(settings.popup ?? '');
  const save = useSettingSave((value: string | null) =>
    unwrap(api.PUT('/self/{shopId}/settings/popup', { ...path(shopId), body: { message: value } })),
  );
  return (
    <SettingsSection
      title="Storefront popup"
      description="A message shown to visitors when they open the storefront. Leave empty for none."
      mutation={save}
      fields={['message']}
      onSubmit={() => save.mutate(orNull(message))}
    >
      <Field label="Popup message" error={fieldError(save.error, 'message')} hint={`${message.length} / 2000`}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            value={message}
            maxLength={2000}
            onChange={(e) => setMessage(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function TermsSection({ settings }: Props) {
  const shopId = useShopId();
  const [terms, setTerms] = useState(settings.terms ?? '');
  const save = useSettingSave((value: string | null) =>
    unwrap(api.PUT('/self/{shopId}/settings/terms', { ...path(shopId), body: { terms: value } })),
  );
  return (
    <SettingsSection
      title="Terms of service"
      description="Shown on the storefront's terms page. Leave empty for none."
      mutation={save}
      fields={['terms']}
      onSubmit={() => save.mutate(orNull(terms))}
    >
      <Field label="Terms of service" error={fieldError(save.error, 'terms')} hint={`${terms.length} / 50000`}>
        {(ids) => (
          <textarea
            {...ids}
            className="input settings-terms"
            value={terms}
            maxLength={50000}
            onChange={(e) => setTerms(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}
