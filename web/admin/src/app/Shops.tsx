import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api, unwrap } from '../api/client';
import { queryKeys } from '../api/queries/keys';
import { useBodyForm } from '../forms/body-form';
import { strings } from '../strings';
import { Field, FormProblems } from '../ui/Field';
import { Page } from '../ui/Page';

/** Creates a shop and opens it. */
export function NewShopForm(props: { onDone?: () => void }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const form = useBodyForm({ operation: 'POST /self/shops', defaultValues: { name: '' }, toBody: (values) => values });
  const create = useMutation({
    mutationFn: (body: { name: string }) => unwrap(api.POST('/self/shops', { body })),
    onSuccess: async (shop) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.shops });
      props.onDone?.();
      navigate(`/${shop.id}`);
    },
  });
  return (
    <form className="stack" onSubmit={form.submit(create.mutateAsync)} noValidate>
      <FormProblems form={form} error={create.error} />
      <Field label={strings.common.shopName} error={form.problem('name')}>
        {(ids) => <input {...ids} {...form.register('name')} className="input" required maxLength={64} />}
      </Field>
      <button type="submit" className="btn btn-primary" disabled={create.isPending}>
        {strings.shops.createShop}
      </button>
    </form>
  );
}

export function CreateFirstShop() {
  return (
    <main className="auth">
      <div className="auth-card">
        <h1>{strings.shops.yourFirstShop}</h1>
        <p className="muted">{strings.shops.nameItTheAddress}</p>
        <NewShopForm />
      </div>
    </main>
  );
}

export function NotFound() {
  return (
    <Page title={strings.shops.notFound}>
      <p>
        {strings.shops.thereIsNoSuch} <Link href="/">{strings.shops.backToTheDashboard}</Link>
      </p>
    </Page>
  );
}
