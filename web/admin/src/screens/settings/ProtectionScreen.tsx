import type { UseFormRegisterReturn } from 'react-hook-form';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type Settings, useSettings } from '../../api/queries/settings';
import { useShopId } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
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
    <Page title={strings.common.protection}>
      <p className="muted">{strings.protection.limitsOnWhatAnonymous}</p>
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
  const range = strings.protection.fromTo(min.toLocaleString('en'), max.toLocaleString('en'));
  const zero = offAtZero ? strings.protection.n0TurnsItOff : '';
  if (value === '') return strings.protection.enterAWholeNumber(range, zero);
  const number = Number(value);
  if (!Number.isInteger(number)) return strings.protection.enterAWholeNumberWithout(range, zero);
  if (number < min || number > max) return strings.protection.enterANumber(range, zero);
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
      title={strings.protection.holdingStock}
      description={strings.protection.anUnpaidOrderHolds}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.protection.cardAndCryptoOrders}
        error={form.problem('holdMinutesHosted')}
        hint={strings.protection.n5To10080Orders}
      >
        {(ids) => <NumberInput ids={ids} min={5} max={10_080} register={form.register('holdMinutesHosted')} />}
      </Field>
      <Field
        label={strings.protection.unitsOfOneProduct}
        error={form.problem('unitsPerClient')}
        hint={strings.protection.countedOverAllOf}
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('unitsPerClient')} />}
      </Field>
      <Field
        label={strings.protection.unpaidOrdersAClient}
        error={form.problem('pendingPerClient')}
        hint={strings.protection.pastItTheCheckout}
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
      title={strings.protection.cardTesting}
      description={strings.protection.cardTestersTryStolen}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.protection.cardAndCryptoCheckouts}
        error={form.problem('hostedCheckoutsPerHour')}
        hint={strings.protection.n0NoLimit}
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
      title={strings.protection.proofOfWorkChallenge}
      description={strings.protection.beforeACheckoutA}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.protection.askForTheChallenge}
        error={form.problem('challenge')}
        hint={strings.protection.programsUsingTheApi}
      >
        {(ids) => (
          <select {...ids} {...form.register('challenge')} className="input">
            <option value="suspicious">{strings.protection.whenAClientActs}</option>
            <option value="always">{strings.protection.always}</option>
            <option value="off">{strings.common.never}</option>
          </select>
        )}
      </Field>
      <Field
        label={strings.protection.actionsPerClientPer}
        error={form.problem('challengeThreshold')}
        hint={strings.protection.checkoutsTicketsAndSign}
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
      title={strings.protection.mailBudgets}
      description={strings.protection.keepsVisitorsFromUsing}
      form={form}
      mutation={save}
    >
      <Field
        label={strings.protection.mailsToOneAddress}
        error={form.problem('mailPerRecipientHour')}
        hint={strings.protection.n0NoLimit}
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('mailPerRecipientHour')} />}
      </Field>
      <Field
        label={strings.protection.mailsOneClientsActions}
        error={form.problem('mailPerClientHour')}
        hint={strings.protection.n0NoLimit}
      >
        {(ids) => <NumberInput ids={ids} min={0} max={MAX_LIMIT} register={form.register('mailPerClientHour')} />}
      </Field>
      <Field
        label={strings.protection.mailsFromThisShop}
        error={form.problem('mailPerShopDay')}
        hint={strings.protection.n0NoLimit}
      >
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
      title={strings.protection.paymentDisputes}
      description={strings.protection.whatHappensWhenA}
      form={form}
      mutation={save}
    >
      <CheckField {...form.register('disputeBlacklist')} error={form.problem('disputeBlacklist')}>
        {strings.protection.blacklistTheOrdersE}
      </CheckField>
      <CheckField {...form.register('disputeAutoSubmit')} error={form.problem('disputeAutoSubmit')}>
        {strings.protection.submitTheCollectedEvidence}
      </CheckField>
    </SettingsSection>
  );
}
