import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type ApiKey, type NewApiKey as NewKey, useApiKeys, useInvalidateApiKeys } from '../../api/queries/api-keys';
import { useShopId } from '../../app/shop';
import { ShopTime } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormProblems } from '../../ui/Field';
import { DataTable } from '../../ui/list';
import { Badge, Card, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { CopyButton } from './copy';
import './settings.css';

type Scope = ApiKey['scopes'][number];

/** The scopes the API knows; the check below fails to compile when it adds one. */
const scopeChoices = [
  ['read', strings.apiKeys.readGetRequests],
  ['write', strings.apiKeys.writeEveryOtherRequest],
] as const satisfies readonly (readonly [Scope, string])[];
const everyScopeListed: Exclude<Scope, (typeof scopeChoices)[number][0]> extends never ? true : false = true;
void everyScopeListed;

export default function ApiKeysScreen() {
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewKey | null>(null);
  const keys = useApiKeys(useShopId());
  return (
    <Page
      title={strings.common.apiKeys}
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
          {strings.apiKeys.createApiKey}
        </button>
      }
    >
      <p className="muted">
        {strings.apiKeys.apiKeysLetYour} <code>{strings.apiKeys.authorizationBearerKey}</code>
        {strings.apiKeys.aKeyIsShown}
      </p>
      {keys.error ? <LoadError error={keys.error} retry={() => keys.refetch()} /> : null}
      <DataTable<ApiKey>
        rows={keys.data?.items ?? []}
        rowKey={(k) => k.id}
        loading={keys.isLoading}
        caption={strings.common.apiKeys}
        empty={strings.apiKeys.noApiKeys}
        columns={[
          {
            header: strings.apiKeys.label,
            cell: (k) => k.label ?? <span className="muted">{strings.apiKeys.noLabel}</span>,
          },
          { header: strings.common.key, cell: (k) => <code>{k.prefix}…</code> },
          { header: strings.apiKeys.scopes, cell: (k) => k.scopes.join(', ') },
          { header: strings.common.created, cell: (k) => <ShopTime iso={k.createdAt} /> },
          {
            header: strings.apiKeys.lastUsed,
            cell: (k) => <ShopTime iso={k.lastUsedAt} none={strings.common.never} />,
          },
          {
            header: strings.common.status,
            cell: (k) =>
              k.revokedAt ? (
                <span className="stack">
                  <Badge tone="bad">{strings.apiKeys.revoked}</Badge>
                  <span className="small muted">
                    <ShopTime iso={k.revokedAt} />
                  </span>
                </span>
              ) : (
                <Badge tone="ok">{strings.common.active}</Badge>
              ),
          },
          { header: strings.common.actions, cell: (k) => (k.revokedAt ? null : <RevokeButton apiKey={k} />) },
        ]}
      />
      <Dialog open={creating} onClose={() => setCreating(false)} title={strings.apiKeys.createApiKey}>
        {creating ? (
          <CreateKeyForm
            onCancel={() => setCreating(false)}
            onCreated={(key) => {
              setCreating(false);
              setCreated(key);
            }}
          />
        ) : null}
      </Dialog>
      <Dialog open={created !== null} onClose={() => setCreated(null)} title={strings.apiKeys.yourNewApiKey}>
        {created ? <NewKeyNotice apiKey={created} onDone={() => setCreated(null)} /> : null}
      </Dialog>
      <ChangePasswordForm />
    </Page>
  );
}

function RevokeButton({ apiKey }: { apiKey: ApiKey }) {
  const invalidate = useInvalidateApiKeys(useShopId());
  const notify = useToast();
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE('/self/keys/{keyId}', { params: { path: { keyId: apiKey.id } } })),
    onSuccess: () => {
      notify(strings.apiKeys.apiKeyRevoked);
      void invalidate();
    },
    onError: (error) => notify(error.message, 'bad'),
  });
  const name = apiKey.label ? `“${apiKey.label}” (${apiKey.prefix}…)` : `${apiKey.prefix}…`;
  return (
    <ConfirmButton
      label={revoke.isPending ? strings.apiKeys.revoking : strings.common.revoke}
      danger
      disabled={revoke.isPending}
      question={strings.apiKeys.revokeTheApiKey(name)}
      onConfirm={() => revoke.mutate()}
    />
  );
}

function CreateKeyForm(props: { onCancel: () => void; onCreated: (key: NewKey) => void }) {
  const invalidate = useInvalidateApiKeys(useShopId());
  const form = useBodyForm({
    operation: 'POST /self/keys',
    defaultValues: { label: '', scopes: scopeChoices.map(([s]) => s) as Scope[] },
    toBody: (values) => ({
      label: values.label.trim() === '' ? null : values.label.trim(),
      // In the API's order, whatever order they were ticked in.
      scopes: scopeChoices.map(([s]) => s).filter((s) => values.scopes.includes(s)),
    }),
  });
  const create = useMutation({
    mutationFn: (body: BodyOf<'POST /self/keys'>) => unwrap(api.POST('/self/keys', { body })),
    onSuccess: (key) => {
      void invalidate();
      props.onCreated(key);
    },
  });
  const scopesError = form.problem('scopes');
  return (
    <form className="stack" onSubmit={form.submit(create.mutateAsync)} noValidate>
      <FormProblems form={form} error={create.error} />
      <Field label={strings.apiKeys.label} error={form.problem('label')} hint={strings.apiKeys.aNameToTell}>
        {(ids) => <input {...ids} {...form.register('label')} className="input" maxLength={100} />}
      </Field>
      <fieldset className="settings-events" aria-describedby={scopesError ? 'api-key-scopes-error' : undefined}>
        <legend className="settings-legend">{strings.apiKeys.scopes}</legend>
        {scopeChoices.map(([scope, text]) => (
          <label key={scope} className="check">
            <input type="checkbox" value={scope} {...form.register('scopes')} />
            {text}
          </label>
        ))}
      </fieldset>
      <p className="field-hint">{strings.apiKeys.noneTickedTheKey}</p>
      {scopesError ? (
        <p className="field-error" id="api-key-scopes-error">
          {scopesError}
        </p>
      ) : null}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? strings.apiKeys.creating : strings.apiKeys.create}
        </button>
        <button type="button" className="btn" onClick={props.onCancel}>
          {strings.common.cancel}
        </button>
      </div>
    </form>
  );
}

function NewKeyNotice(props: { apiKey: NewKey; onDone: () => void }) {
  return (
    <div className="stack">
      <p className="alert alert-info" role="alert">
        {strings.apiKeys.copyThisKeyNow}
      </p>
      {props.apiKey.label ? <p>{strings.apiKeys.labelValue(props.apiKey.label)}</p> : null}
      <Field label={strings.apiKeys.apiKey}>
        {(ids) => (
          <input
            {...ids}
            className="input settings-secret"
            readOnly
            value={props.apiKey.key}
            onFocus={(e) => e.target.select()}
          />
        )}
      </Field>
      <div className="row">
        <CopyButton text={props.apiKey.key} label={strings.common.copyKey} />
        <button type="button" className="btn btn-primary" onClick={props.onDone}>
          {strings.common.done}
        </button>
      </div>
    </div>
  );
}

function ChangePasswordForm() {
  const notify = useToast();
  const form = useBodyForm({
    operation: 'PUT /self/password',
    defaultValues: { currentPassword: '', newPassword: '', repeat: '', revokeApiKeys: false },
    toBody: (values) => ({
      currentPassword: values.currentPassword,
      newPassword: values.newPassword,
      revokeApiKeys: values.revokeApiKeys,
    }),
    check: (values) => ({
      repeat: values.repeat !== values.newPassword ? strings.apiKeys.repeatDiffers : undefined,
    }),
  });
  const invalidateKeys = useInvalidateApiKeys(useShopId());
  const change = useMutation({
    mutationFn: (body: BodyOf<'PUT /self/password'>) => unwrap(api.PUT('/self/password', { body })),
    onSuccess: (changed) => {
      notify(strings.apiKeys.passwordChanged(changed.revokedApiKeys, changed.activeApiKeys));
      form.reset();
      void invalidateKeys();
    },
  });
  const [currentPassword, newPassword, repeat] = form.watch(['currentPassword', 'newPassword', 'repeat']);
  // Said while typing, once the repeat is begun.
  const mismatch = repeat !== '' && repeat !== newPassword;
  return (
    <Card title={strings.common.changePassword}>
      <form
        className="stack"
        onSubmit={form.submit(change.mutateAsync)}
        noValidate
        aria-label={strings.common.changePassword}
      >
        <p className="muted small">{strings.apiKeys.changingItSignsOut}</p>
        <FormProblems form={form} error={change.error} />
        <Field label={strings.apiKeys.currentPassword} error={form.problem('currentPassword')}>
          {(ids) => (
            <input
              {...ids}
              {...form.register('currentPassword')}
              className="input"
              type="password"
              autoComplete="current-password"
            />
          )}
        </Field>
        <Field label={strings.common.newPassword} error={form.problem('newPassword')}>
          {(ids) => (
            <input
              {...ids}
              {...form.register('newPassword')}
              className="input"
              type="password"
              autoComplete="new-password"
            />
          )}
        </Field>
        <Field
          label={strings.apiKeys.repeatNewPassword}
          error={mismatch ? strings.apiKeys.doesNotMatchThe : form.problem('repeat')}
        >
          {(ids) => (
            <input
              {...ids}
              {...form.register('repeat')}
              className="input"
              type="password"
              autoComplete="new-password"
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" {...form.register('revokeApiKeys')} />
          <span>{strings.apiKeys.alsoRevokeEveryApi}</span>
        </label>
        <div className="row">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={change.isPending || mismatch || currentPassword === '' || newPassword === ''}
          >
            {change.isPending ? strings.apiKeys.changing : strings.common.changePassword}
          </button>
        </div>
      </form>
    </Card>
  );
}
