import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api, unwrap } from '../api/client';
import { Field, FormError, fieldError } from '../ui/Field';
import { Page } from '../ui/Page';

/** Creates a shop and opens it. */
export function NewShopForm(props: { onDone?: () => void }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/self/shops', { body: { name } })),
    onSuccess: async (shop) => {
      await queryClient.invalidateQueries({ queryKey: ['shops'] });
      props.onDone?.();
      navigate(`/${shop.id}`);
    },
  });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <FormError error={create.error} fields={['name']} />
      <Field label="Shop name" error={fieldError(create.error, 'name')}>
        {(ids) => (
          <input
            {...ids}
            className="input"
            required
            maxLength={64}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <button type="submit" className="btn btn-primary" disabled={create.isPending}>
        Create shop
      </button>
    </form>
  );
}

export function CreateFirstShop() {
  return (
    <main className="auth">
      <div className="auth-card">
        <h1>Your first shop</h1>
        <p className="muted">Name it; the address and everything else can be changed later.</p>
        <NewShopForm />
      </div>
    </main>
  );
}

export function NotFound() {
  return (
    <Page title="Not found">
      <p>
        There is no such screen. <Link href="/">Back to the dashboard</Link>
      </p>
    </Page>
  );
}
