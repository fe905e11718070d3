import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type ApiKey, type NewApiKey as NewKey, useApiKeys, useInvalidateApiKeys } from '../../api/queries/api-keys';
import { useShopId } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormProblems } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { DataTable } from '../../ui/list';
import { Badge, Card, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { CopyButton } from './copy';
import './settings.css';

type Scope = ApiKey['scopes'][number];

/** The scopes the API knows; the check below fails to compile when it adds one. */
const scopeChoices = [
  ['read', 'Read (GET requests)'],
  ['write', 'Write (every other request)'],
] as const satisfies readonly (readonly [Scope, string])[];
const everyScopeListed: Exclude<Scope, (typeof scopeChoices)[number][0]> extends never ? true : false = true;
void everyScopeListed;

export default function ApiKeysScreen() {
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewKey | null>(null);
  const keys = useApiKeys(useShopId());
  return (
    <Page
      title="API keys"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
          Create API key
        </button>
      }
    >
      <p className="muted">
        API keys let your own programs use the shopd API for every shop of this account: send one as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code>. A key is shown only once, when it is created.
      </p>
      {keys.error ? <LoadError error={keys.error} retry={() => keys.refetch()} /> : null}
      <DataTable<ApiKey>
        rows={keys.data?.items ?? []}
        rowKey={(k) => k.id}
        loading={keys.isLoading}
        caption="API keys"
        empty="No API keys."
        columns={[
          { header: 'Label', cell: (k) => k.label ?? <span className="muted">No label</span> },
          { header: 'Key', cell: (k) => <code>{k.prefix}…</code> },
          { header: 'Scopes', cell: (k) => k.scopes.join(', ') },
          { header: 'Created', cell: (k) => dateTime(k.createdAt) },
          { header: 'Last used', cell: (k) => (k.lastUsedAt ? dateTime(k.lastUsedAt) : 'Never') },
          {
            header: 'Status',
            cell: (k) =>
              k.revokedAt ? (
                <span className="stack">
                  <Badge tone="bad">Revoked</Badge>
                  <span className="small muted">{dateTime(k.revokedAt)}</span>
                </span>
              ) : (
                <Badge tone="ok">Active</Badge>
              ),
          },
          { header: 'Actions', cell: (k) => (k.revokedAt ? null : <RevokeButton apiKey={k} />) },
        ]}
      />
      <Dialog open={creating} onClose={() => setCreating(false)} title="Create API key">
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
      <Dialog open={created !== null} onClose={() => setCreated(null)} title="Your new API key">
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
      notify('API key revoked');
      void invalidate();
    },
    onError: (error) => notify(error.message, 'bad'),
  });
  const name = apiKey.label ? `“${apiKey.label}” (${apiKey.prefix}…)` : `${apiKey.prefix}…`;
  return (
    <ConfirmButton
      label={revoke.isPending ? 'Revoking…' : 'Revoke'}
      danger
      disabled={revoke.isPending}
      question={`Revoke the API key ${name}? Programs using it stop working at once. This cannot be undone.`}
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
      <Field label="Label" error={form.problem('label')} hint="A name to tell the key apart (optional).">
        {(ids) => <input {...ids} {...form.register('label')} className="input" maxLength={100} />}
      </Field>
      <fieldset className="settings-events" aria-describedby={scopesError ? 'api-key-scopes-error' : undefined}>
        <legend className="settings-legend">Scopes</legend>
        {scopeChoices.map(([scope, text]) => (
          <label key={scope} className="check">
            <input type="checkbox" value={scope} {...form.register('scopes')} />
            {text}
          </label>
        ))}
      </fieldset>
      <p className="field-hint">None ticked: the key gets every scope you have.</p>
      {scopesError ? (
        <p className="field-error" id="api-key-scopes-error">
          {scopesError}
        </p>
      ) : null}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function NewKeyNotice(props: { apiKey: NewKey; onDone: () => void }) {
  return (
    <div className="stack">
      <p className="alert alert-info" role="alert">
        Copy this key now: it is not shown again. shopd keeps only a hash of it.
      </p>
      {props.apiKey.label ? <p>Label: {props.apiKey.label}</p> : null}
      <Field label="API key">
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
        <CopyButton text={props.apiKey.key} label="Copy key" />
        <button type="button" className="btn btn-primary" onClick={props.onDone}>
          Done
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
      repeat: values.repeat !== values.newPassword ? 'does not match the new password' : undefined,
    }),
  });
  const invalidateKeys = useInvalidateApiKeys(useShopId());
  const change = useMutation({
    mutationFn: (body: BodyOf<'PUT /self/password'>) => unwrap(api.PUT('/self/password', { body })),
    onSuccess: (changed) => {
      const keys =
        changed.revokedApiKeys > 0
          ? ` ${changed.revokedApiKeys} API ${changed.revokedApiKeys === 1 ? 'key was' : 'keys were'} revoked.`
          : changed.activeApiKeys > 0
            ? ` Your ${changed.activeApiKeys} API ${changed.activeApiKeys === 1 ? 'key still works' : 'keys still work'}.`
            : '';
      notify(`Password changed. Your other sessions were signed out.${keys}`);
      form.reset();
      void invalidateKeys();
    },
  });
  const [currentPassword, newPassword, repeat] = form.watch(['currentPassword', 'newPassword', 'repeat']);
  // Said while typing, once the repeat is begun.
  const mismatch = repeat !== '' && repeat !== newPassword;
  return (
    <Card title="Change password">
      <form className="stack" onSubmit={form.submit(change.mutateAsync)} noValidate aria-label="Change password">
        <p className="muted small">Changing it signs out every other session of this account.</p>
        <FormProblems form={form} error={change.error} />
        <Field label="Current password" error={form.problem('currentPassword')}>
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
        <Field label="New password" error={form.problem('newPassword')}>
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
          label="Repeat new password"
          error={mismatch ? 'does not match the new password' : form.problem('repeat')}
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
          <span>Also revoke every API key of this account (scripts using them stop working)</span>
        </label>
        <div className="row">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={change.isPending || mismatch || currentPassword === '' || newPassword === ''}
          >
            {change.isPending ? 'Changing…' : 'Change password'}
          </button>
        </div>
      </form>
    </Card>
  );
}
