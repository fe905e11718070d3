import type { UseFormRegisterReturn } from 'react-hook-form';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type Settings, useSettings } from '../../api/queries/settings';
import { useShopId } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { CheckField, Field } from '../../ui/Field';
import { LoadError, Loading, Page } from '../../ui/Page';
import { SettingsSection, useSettingSave } from './section';
import './settings.css';

/**
 * The shop's protection of its public flows (PUT settings/protection): every setting, in sections
 * saved on their own, each sending only its own settings (the others keep their values).
 */

type Operation = 'PUT /self/{shopId}/settings/protection';
type Body = BodyOf<Operation>;
type Protection = Settings['protection'];
type Props = { protection: Protection };
type FieldIds = Parameters<Parameters<typeof Field>[0]['children']>[0];

/** The largest value the API takes for a limit (src/modules/protection/schema.ts). */
const MAX_LIMIT = 10_000_000;

export default function ProtectionScreen() {
  const settings = useSettings(useShopId());
  return (
    <Page title="Protection">
      <p className="muted">
        Limits on what anonymous visitors can do in this shop. A client is one IP address (a whole IPv6 /64 counts as
        one) and, where the form has one, one e-mail address.
      </p>
      {settings.isLoading ? <Loading /> : null}
      {settings.error ? <LoadError error={settings.error} retry={() => settings.refetch()} /> : null}
      {settings.data ? (
        <div className="settings-sections">
          <HoldsSection protection={settings.data.protection} />
          <CardTestingSection protection={settings.data.protection} />
          <ChallengeSection protection={settings.data.protection} />
          <MailSection protection={settings.data.protection} />
          <DisputesSection protection={settings.data.protection} />
        </div>
      ) : null}
    </Page>
  );
}

/**
 * The owner's words for a number field that is not a whole number in range (the schema's own
 * words are a validator's: "must be >= 5"); undefined when it is one. An empty field is a
 * problem too: read as 0 it would silently turn a limit off.
 */
function wholeNumberProblem(text: string, min: number, max: number, offAtZero: boolean): string | undefined {
  const value = text.trim();
  const range = `from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`;
  const zero = offAtZero ? ' (0 turns it off)' : '';
  if (value === '') return `Enter a whole number ${range}${zero}.`;
  const number = Number(value);
  if (!Number.isInteger(number)) return `Enter a whole number ${range}${zero}, without decimals.`;
  if (number < min || number > max) return `Enter a number ${range}${zero}.`;
  return undefined;
}

/** The problems of a section's number fields, by field: `[name, min, max, offAtZero]` each. */
function numberChecks<Values extends Record<string, string | boolean>>(
  fields: [keyof Values & string, number, number, boolean][],
) {
  return (values: Values) =>
    Object.fromEntries(
      fields.map(([name, min, max, offAtZero]) => [
        name,
        wholeNumberProblem(String(values[name]), min, max, offAtZero),
      ]),
    );
}

function useProtectionSave() {
  const shopId = useShopId();
  return useSettingSave((body: Body) =>
    unwrap(api.PUT('/self/{shopId}/settings/protection', { params: { path: { shopId } }, body })),
  );
}

/** A number input of a section, given its Field's ids and its form registration. */
function NumberInput(props: { ids: FieldIds; min: number; max: number; register: UseFormRegisterReturn }) {
  return (
    <input
      {...props.ids}
      {...props.register}
      className="input"
      type="number"
      inputMode="numeric"
      min={props.min}
      max={props.max}
      step={1}
    />
  );
}

function HoldsSection({ protection }: Props) {
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/protection',
    defaultValues: {
      holdMinutesHosted: String(protection.holdMinutesHosted),
      unitsPerClient: String(protection.unitsPerClient),
      pendingPerClient: String(protection.pendingPerClient),
    },
    toBody: (values): Body => ({
      holdMinutesHosted: Number(values.holdMinutesHosted),
      unitsPerClient: Number(values.unitsPerClient),
      pendingPerClient: Number(values.pendingPerClient),
    }),
    check: numberChecks([
      ['holdMinutesHosted', 5, 10_080, false],
      ['unitsPerClient', 0, MAX_LIMIT, true],
      ['pendingPerClient', 0, MAX_LIMIT, true],
    ]),
  });
  const save = useProtectionSave();
  return (
    <SettingsSection
      title="Holding stock"
      description="An unpaid order holds its stock until it expires. These limits keep one visitor from taking a product off sale with orders they never pay."
      form={form}
      mutation={save}
    >
      <Field
        label="Card and crypto orders hold stock for (minutes)"
        error={form.problem('holdMinutesHosted')}
        hint="5 to 10080. Orders paid by a manual method keep the invoice lifetime (General settings). The payment page closes then; a page the provider keeps open longer is closed once the order expires."
      >
        {(ids) => <NumberInput ids={ids} min={5} max={10_080} register={form.register('holdMinutesHosted')} />}
      </Field>
      <Field
        label="Units of one product a client may hold unpaid"
        error={form.problem('unitsPerClient')}
        hint="Counted over all of the client's unpaid orders, the new one included. 0 = no limit."
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('unitsPerClient')} />}
      </Field>
      <Field
        label="Unpaid orders a client may have open"
        error={form.problem('pendingPerClient')}
        hint="Past it, the checkout asks the client to wait until their earliest order expires. 0 = no limit."
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('pendingPerClient')} />}
      </Field>
    </SettingsSection>
  );
}

function CardTestingSection({ protection }: Props) {
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/protection',
    defaultValues: { hostedCheckoutsPerHour: String(protection.hostedCheckoutsPerHour) },
    toBody: (values): Body => ({ hostedCheckoutsPerHour: Number(values.hostedCheckoutsPerHour) }),
    check: numberChecks([['hostedCheckoutsPerHour', 0, MAX_LIMIT, true]]),
  });
  const save = useProtectionSave();
  return (
    <SettingsSection
      title="Card testing"
      description="Card testers try stolen cards with many small card or crypto checkouts. Every attempt counts, paid or not."
      form={form}
      mutation={save}
    >
      <Field
        label="Card and crypto checkouts per client per hour"
        error={form.problem('hostedCheckoutsPerHour')}
        hint="0 = no limit."
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('hostedCheckoutsPerHour')} />}
      </Field>
    </SettingsSection>
  );
}

function ChallengeSection({ protection }: Props) {
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/protection',
    defaultValues: {
      challenge: protection.challenge,
      challengeThreshold: String(protection.challengeThreshold),
    },
    toBody: (values): Body => ({
      challenge: values.challenge,
      challengeThreshold: Number(values.challengeThreshold),
    }),
    check: numberChecks([['challengeThreshold', 1, MAX_LIMIT, false]]),
  });
  const save = useProtectionSave();
  return (
    <SettingsSection
      title="Proof-of-work challenge"
      description="Before a checkout, a support ticket or a sign-in code, the buyer's browser can be asked to solve a small puzzle (ALTCHA, run by this server). It takes a second or two and starts by itself, but needs JavaScript; scripts placing orders by the thousand pay for every one."
      form={form}
      mutation={save}
    >
      <Field
        label="Ask for the challenge"
        error={form.problem('challenge')}
        hint="Programs using the API send the solution in the X-Altcha header."
      >
        {(ids) => (
          <select {...ids} {...form.register('challenge')} className="input">
            <option value="suspicious">When a client acts too often (below)</option>
            <option value="always">Always</option>
            <option value="off">Never</option>
          </select>
        )}
      </Field>
      <Field
        label="Actions per client per hour before it is asked"
        error={form.problem('challengeThreshold')}
        hint="Checkouts, tickets and sign-in codes of one client in the last hour. Used when the challenge is asked only of clients that act too often."
      >
        {(ids) => <NumberInput ids={ids} min={1} max={MAX_LIMIT} register={form.register('challengeThreshold')} />}
      </Field>
    </SettingsSection>
  );
}

function MailSection({ protection }: Props) {
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/protection',
    defaultValues: {
      mailPerRecipientHour: String(protection.mailPerRecipientHour),
      mailPerClientHour: String(protection.mailPerClientHour),
      mailPerShopDay: String(protection.mailPerShopDay),
    },
    toBody: (values): Body => ({
      mailPerRecipientHour: Number(values.mailPerRecipientHour),
      mailPerClientHour: Number(values.mailPerClientHour),
      mailPerShopDay: Number(values.mailPerShopDay),
    }),
    check: numberChecks([
      ['mailPerRecipientHour', 0, MAX_LIMIT, true],
      ['mailPerClientHour', 0, MAX_LIMIT, true],
      ['mailPerShopDay', 0, MAX_LIMIT, true],
    ]),
  });
  const save = useProtectionSave();
  return (
    <SettingsSection
      title="Mail budgets"
      description="Keeps visitors from using the shop to send mail to anyone. A mail over a budget is not sent but recorded as suppressed; the order or ticket is still created."
      form={form}
      mutation={save}
    >
      <Field label="Mails to one address per hour" error={form.problem('mailPerRecipientHour')} hint="0 = no limit.">
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('mailPerRecipientHour')} />}
      </Field>
      <Field
        label="Mails one client's actions may cause per hour"
        error={form.problem('mailPerClientHour')}
        hint="0 = no limit."
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('mailPerClientHour')} />}
      </Field>
      <Field label="Mails from this shop per day" error={form.problem('mailPerShopDay')} hint="0 = no limit.">
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('mailPerShopDay')} />}
      </Field>
    </SettingsSection>
  );
}

function DisputesSection({ protection }: Props) {
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/protection',
    defaultValues: {
      disputeBlacklist: protection.disputeBlacklist,
      disputeAutoSubmit: protection.disputeAutoSubmit,
    },
    toBody: (values): Body => values,
  });
  const save = useProtectionSave();
  return (
    <SettingsSection
      title="Payment disputes"
      description="What happens when a buyer disputes a card payment (a chargeback)."
      form={form}
      mutation={save}
    >
      <CheckField {...form.register('disputeBlacklist')} error={form.problem('disputeBlacklist')}>
        Blacklist the order's e-mail address and IP address
      </CheckField>
      <CheckField {...form.register('disputeAutoSubmit')} error={form.problem('disputeAutoSubmit')}>
        Submit the collected evidence to the provider at once
      </CheckField>
    </SettingsSection>
  );
}
