import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { DataTable } from '../../ui/list';
import { Badge, Card, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { CopyButton } from './copy';
import './settings.css';

type ApiKey = paths['/self/keys']['get']['responses'][200]['content']['application/json']['data']['items'][number];
type Scope = ApiKey['scopes'][number];
type NewKey = paths['/self/keys']['post']['responses'][200]['content']['application/json']['data'];

/** The scopes the API knows; the check below fails to compile when it adds one. */
const scopeChoices = [
  ['read', 'Read (GET requests)'],
  ['write', 'Write (every other request)'],
] as const satisfies readonly (readonly [Scope, string])[];
const everyScopeListed: Exclude<Scope, (typeof scopeChoices)[number][0]> extends never ? true : false = true;
void everyScopeListed;

function useKeysKey() {
  // Keys belong to the account, not the shop; kept under the shop's key like every other query.
  return ['shop', useShopId(), 'api-keys'] as const;
}

export default function ApiKeysScreen() {
  const queryKey = useKeysKey();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewKey | null>(null);
  const keys = useQuery({ queryKey, queryFn: () => unwrap(api.GET('/self/keys')) });
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
  const queryKey = useKeysKey();
  const queryClient = useQueryClient();
  const notify = useToast();
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE('/self/keys/{keyId}', { params: { path: { keyId: apiKey.id } } })),
    onSuccess: () => {
      notify('API key revoked');
      void queryClient.invalidateQueries({ queryKey });
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
  const queryKey = useKeysKey();
  const queryClient = useQueryClient();
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(scopeChoices.map(([s]) => s)));
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/self/keys', {
          body: {
            label: label.trim() === '' ? null : label.trim(),
            scopes: scopeChoices.map(([s]) => s).filter((s) => scopes.has(s)),
          },
        }),
      ),
    onSuccess: (key) => {
      void queryClient.invalidateQueries({ queryKey });
      props.onCreated(key);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const scopesError = fieldError(create.error, 'scopes');
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <FormError error={create.error} fields={['label', 'scopes']} />
      <Field label="Label" error={fieldError(create.error, 'label')} hint="A name to tell the key apart (optional).">
        {(ids) => (
          <input {...ids} className="input" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />
        )}
      </Field>
      <fieldset className="settings-events" aria-describedby={scopesError ? 'api-key-scopes-error' : undefined}>
        <legend className="settings-legend">Scopes</legend>
        {scopeChoices.map(([scope, text]) => (
          <label key={scope} className="check">
            <input
              type="checkbox"
              checked={scopes.has(scope)}
              onChange={(e) =>
                setScopes((all) => {
                  const next = new Set(all);
                  if (e.target.checked) next.add(scope);
                  else next.delete(scope);
                  return next;
                })
              }
            />
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
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const mismatch = repeat !== '' && repeat !== newPassword;
  const change = useMutation({
    mutationFn: async () => {
      // Answers `data: null`, which the generated types drop, so unwrap() cannot be used.
      const { error, response } = await api.PUT('/self/password', { body: { currentPassword, newPassword } });
      if (error !== undefined || !response.ok) throw new ApiError(response.status, error);
    },
    onSuccess: () => {
      notify('Password changed. Your other sessions were signed out.');
      setCurrentPassword('');
      setNewPassword('');
      setRepeat('');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mismatch) return;
    change.mutate();
  };
  return (
    <Card title="Change password">
      <form className="stack" onSubmit={submit} noValidate aria-label="Change password">
        <p className="muted small">Changing it signs out every other session of this account.</p>
        <FormError error={change.error} fields={['currentPassword', 'newPassword']} />
        <Field label="Current password" error={fieldError(change.error, 'currentPassword')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="password"
              autoComplete="current-password"
              value={currentPassword}
              onChange={(e) => setCurrentPassword(e.target.value)}
            />
          )}
        </Field>
        <Field label="New password" error={fieldError(change.error, 'newPassword')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="password"
              autoComplete="new-password"
              value={newPassword}
              onChange={(e) => setNewPassword(e.target.value)}
            />
          )}
        </Field>
        <Field label="Repeat new password" error={mismatch ? 'does not match the new password' : undefined}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="password"
              autoComplete="new-password"
              value={repeat}
              onChange={(e) => setRepeat(e.target.value)}
            />
          )}
        </Field>
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
