import { useMemo } from 'react';
import { LOCALE_NAMES, LOCALES } from '../../../../../src/shared/locales';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type Settings, useSettings } from '../../api/queries/settings';
import { useShopId } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { CheckField, Field } from '../../ui/Field';
import { offsetLabel } from '../../ui/format';
import { Badge, LoadError, Loading, Page } from '../../ui/Page';
import { orNull, SettingsSection, useSettingSave } from './section';
import './settings.css';

type Currency = BodyOf<'PUT /self/{shopId}/settings/currency'>['currency'];

export default function GeneralSettingsScreen() {
  const settings = useSettings(useShopId());
  return (
    <Page title={strings.settings.generalSettings}>
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
      <LanguageSection settings={settings} />
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
    <SettingsSection title={strings.common.shopName} form={form} mutation={save}>
      <Field label={strings.common.shopName} error={form.problem('newName')}>
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
      title={strings.settings.shopStatus}
      description={strings.settings.aShopOnHold}
      form={form}
      mutation={save}
    >
      <p>
        {strings.settings.now}{' '}
        {settings.onHold ? (
          <Badge tone="warn">{strings.settings.onHold}</Badge>
        ) : (
          <Badge tone="ok">{strings.settings.open}</Badge>
        )}
      </p>
      <CheckField {...form.register('onHold')} error={form.problem('onHold')}>
        {strings.settings.putTheShopOn}
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
      title={strings.settings.subdomain}
      description={
        <>
          {strings.settings.theStorefrontIsAt}{' '}
          <a href={settings.storefrontUrl} target="_blank" rel="noreferrer">
            {settings.storefrontUrl}
          </a>
          {strings.settings.changingTheSubdomainChanges}
        </>
      }
      form={form}
      mutation={save}
    >
      <Field
        label={strings.settings.subdomain}
        error={form.problem('newSubDomain')}
        hint={strings.settings.n332LowerCase}
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
      title={strings.settings.customDomain}
      description={strings.settings.pointTheDomainsDns}
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
            {strings.settings.removeDomain}
          </button>
        ) : null
      }
    >
      <Field
        label={strings.settings.customDomain}
        error={form.problem('domain')}
        hint={strings.settings.forExampleShopExample}
      >
        {(ids) => (
          <input
            {...ids}
            {...form.register('domain')}
            className="input"
            maxLength={254}
            autoCapitalize="none"
            spellCheck={false}
            placeholder={strings.settings.shopExampleCom}
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
    strings.settings.domainVerified,
  );
  return (
    <section className="settings-domain-verification" aria-label={strings.settings.domainVerification}>
      <p>
        {verification.verified ? (
          <Badge tone="ok">{strings.settings.verified}</Badge>
        ) : (
          <Badge tone="warn">{strings.settings.notVerified}</Badge>
        )}{' '}
        {verification.verified ? strings.settings.theDnsRecordWas : strings.settings.createThisDnsRecord}
      </p>
      <dl className="orders-facts">
        <dt>{strings.common.type}</dt>
        <dd>
          <code>{verification.type}</code>
        </dd>
        <dt>{strings.common.name}</dt>
        <dd>
          <code>{verification.record}</code>
        </dd>
        <dt>{strings.common.value}</dt>
        <dd>
          {verification.value ? (
            <code>{verification.value}</code>
          ) : (
            <span className="muted">{strings.settings.saveTheDomainAgain}</span>
          )}
        </dd>
      </dl>
      {verification.verified ? null : (
        <p>
          <button type="button" className="btn" disabled={verify.isPending} onClick={() => verify.mutate(undefined)}>
            {strings.settings.checkNow}
          </button>{' '}
          {verify.error ? (
            <span role="alert" className="muted small">
              {verify.error instanceof Error ? verify.error.message : strings.settings.theRecordWasNot}
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
      title={strings.settings.currency}
      description={strings.settings.pricesCouponAmountsAnd}
      form={form}
      mutation={save}
    >
      <Field label={strings.settings.currency} error={form.problem('currency')} hint={strings.settings.anIso4217Code}>
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

function LanguageSection({ settings }: Props) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/language',
    defaultValues: { language: settings.language },
    toBody: (values) => values,
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/language'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/language', { ...path(shopId), body })),
  );
  return (
    <SettingsSection
      title={strings.settings.language}
      description={strings.settings.languageDescription}
      form={form}
      mutation={save}
    >
      <Field label={strings.settings.defaultLanguage} error={form.problem('language')}>
        {(ids) => (
          <select {...ids} {...form.register('language')} className="input">
            {LOCALES.map((locale) => (
              <option key={locale} value={locale} lang={locale}>
                {LOCALE_NAMES[locale]}
              </option>
            ))}
          </select>
        )}
      </Field>
    </SettingsSection>
  );
}

/** Every quarter hour the API accepts (−12:00 to +14:00), and the shop's own offset if it is not one. */
function offsetChoices(current: number): number[] {
  const choices: number[] = [];
  for (let m = -720; m <= 840; m += 15) choices.push(m);
  if (!choices.includes(current)) choices.push(current);
  return choices.sort((a, b) => a - b);
}

/** The names the API takes: `UTC`, or an IANA name with a slash (not `CET`, `EST` or `+01:00`). */
const ZONE_NAME = /^(?:UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+)$/;

/** This browser's time zone, when it is one the API takes. */
function browserZone(): string | null {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && ZONE_NAME.test(zone) ? zone : null;
}

/** A zone's offset from UTC at `now`, in minutes east (0 when this browser cannot tell). */
function zoneOffset(timeZone: string, now: number): number {
  try {
    const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(now)
      .find((part) => part.type === 'timeZoneName')?.value;
    const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name ?? '');
    return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  } catch {
    return 0;
  }
}

/**
 * The zones to choose from, by region (`America`, `Europe` …), each with its offset now: this
 * browser's list of IANA zones, `UTC`, and the shop's and the browser's own when the list lacks
 * them (ICU lists `Asia/Calcutta`, a shop may have saved `Asia/Kolkata`).
 */
function zoneGroups(extra: (string | null)[]): { region: string; zones: { zone: string; label: string }[] }[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const names = [...new Set([...known, ...extra.filter((z): z is string => z !== null)])]
    .filter((zone) => ZONE_NAME.test(zone) && zone !== 'UTC')
    .sort();
  const now = Date.now();
  const groups = new Map<string, { zone: string; label: string }[]>();
  for (const zone of names) {
    const region = zone.slice(0, zone.indexOf('/'));
    const zones = groups.get(region) ?? [];
    zones.push({ zone, label: strings.settings.zoneOption(zone, offsetLabel(zoneOffset(zone, now))) });
    groups.set(region, zones);
  }
  return [...groups].map(([region, zones]) => ({ region, zones }));
}

type ClockKind = 'zone' | 'offset';

/**
 * The shop's clock: an IANA time zone (daylight saving included), or a fixed UTC offset (the
 * original API's setting). Saved as `{ timezone }` or `{ utcTimezoneOffset }`, exactly one.
 */
function TimezoneSection({ settings }: Props) {
  const shopId = useShopId();
  const computerZone = useMemo(browserZone, []);
  const browserOffset = -new Date().getTimezoneOffset();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/timezone',
    defaultValues: {
      kind: (settings.timezone ? 'zone' : 'offset') as ClockKind,
      // A shop on a fixed offset has no zone yet: UTC, this computer's a click away.
      timezone: settings.timezone ?? 'UTC',
      utcTimezoneOffset: String(settings.utcTimezoneOffset),
    },
    toBody: (values): BodyOf<'PUT /self/{shopId}/settings/timezone'> =>
      values.kind === 'zone' ? { timezone: values.timezone } : { utcTimezoneOffset: Number(values.utcTimezoneOffset) },
  });
  const save = useSettingSave((body: BodyOf<'PUT /self/{shopId}/settings/timezone'>) =>
    unwrap(api.PUT('/self/{shopId}/settings/timezone', { ...path(shopId), body })),
  );
  const groups = useMemo(() => zoneGroups([settings.timezone, computerZone]), [settings.timezone, computerZone]);
  const [kind, timezone, utcTimezoneOffset] = form.watch(['kind', 'timezone', 'utcTimezoneOffset']);
  const offset = Number(utcTimezoneOffset);
  const zoneButton =
    kind === 'zone' && computerZone && timezone !== computerZone ? (
      <button
        type="button"
        className="btn"
        onClick={() => form.setValue('timezone', computerZone, { shouldDirty: true })}
      >
        {strings.settings.thisComputersZone(computerZone)}
      </button>
    ) : null;
  const offsetButton =
    kind === 'offset' && browserOffset !== offset ? (
      <button
        type="button"
        className="btn"
        onClick={() => form.setValue('utcTimezoneOffset', String(browserOffset), { shouldDirty: true })}
      >
        {strings.settings.thisComputersOffset(offsetLabel(browserOffset))}
      </button>
    ) : null;
  return (
    <SettingsSection
      title={strings.settings.timeZone}
      description={strings.settings.dashboardsAndDateFilters}
      form={form}
      mutation={save}
      extra={
        <>
          {zoneButton}
          {offsetButton}
        </>
      }
    >
      <fieldset className="choice-group">
        <legend>{strings.settings.shopClock}</legend>
        <label className="check">
          <input type="radio" value="zone" {...form.register('kind')} />
          {strings.settings.followsDaylightSaving}
        </label>
        <label className="check">
          <input type="radio" value="offset" {...form.register('kind')} />
          {strings.settings.fixedUtcOffset}
        </label>
      </fieldset>
      {kind === 'zone' ? (
        <Field label={strings.settings.timeZone} error={form.problem('timezone')} hint={strings.settings.aDayThereMay}>
          {(ids) => (
            <select {...ids} {...form.register('timezone')} className="input">
              <option value="UTC">{strings.settings.zoneOption('UTC', offsetLabel(0))}</option>
              {groups.map((group) => (
                <optgroup key={group.region} label={group.region}>
                  {group.zones.map((z) => (
                    <option key={z.zone} value={z.zone}>
                      {z.label}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          )}
        </Field>
      ) : (
        <Field
          label={strings.settings.utcOffset}
          error={form.problem('utcTimezoneOffset')}
          hint={strings.settings.theSameOffsetAll}
        >
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
      )}
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
    strings.settings.storefrontPasswordSaved,
  );
  const send = (body: BodyOf<'PUT /self/{shopId}/settings/password'>) =>
    save.mutateAsync(body).then(() => form.reset());
  return (
    <SettingsSection
      title={strings.settings.storefrontPassword}
      description={strings.settings.withAPasswordBuyers}
      form={form}
      mutation={save}
      send={send}
      submitLabel={settings.passwordProtected ? strings.common.changePassword : strings.common.setPassword}
      submitDisabled={form.watch('password') === ''}
      extra={
        settings.passwordProtected ? (
          <button
            type="button"
            className="btn btn-danger"
            disabled={save.isPending}
            onClick={() => {
              if (window.confirm(strings.settings.removeTheStorefrontPassword))
                send({ password: null }).catch(() => undefined);
            }}
          >
            {strings.settings.removePassword}
          </button>
        ) : null
      }
    >
      <p>
        {strings.settings.now}{' '}
        {settings.passwordProtected ? (
          <Badge tone="info">{strings.settings.passwordProtected}</Badge>
        ) : (
          <Badge>{strings.settings.openToEveryone}</Badge>
        )}
      </p>
      <Field
        label={
          settings.passwordProtected ? strings.settings.newStorefrontPassword : strings.settings.storefrontPassword
        }
        error={form.problem('password')}
        hint={strings.settings.n4128Characters}
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
      title={strings.settings.invoiceLifetime}
      description={strings.settings.howLongAPending}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.settings.invoiceLifetimeMinutes}
        error={form.problem('lifetimeMinutes')}
        hint={strings.settings.n5To10080A}
      >
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
      title={strings.settings.affiliateCommission}
      description={strings.settings.paidToTheCustomer}
      form={form}
      mutation={save}
    >
      <Field label={strings.settings.commission} error={form.problem('percentage')} hint={strings.settings.n0To100At}>
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
      title={strings.settings.storefrontPopup}
      description={strings.settings.aMessageShownTo}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.settings.popupMessage}
        error={form.problem('message')}
        hint={`${form.watch('message').length} / 2000`}
      >
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
      title={strings.common.termsOfService}
      description={strings.settings.shownOnTheStorefronts}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.common.termsOfService}
        error={form.problem('terms')}
        hint={`${form.watch('terms').length} / 50000`}
      >
        {(ids) => <textarea {...ids} {...form.register('terms')} className="input settings-terms" maxLength={50000} />}
      </Field>
    </SettingsSection>
  );
}
