import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import { type Product, useProduct } from '../../api/queries/products';
import { useShop, useShopPath } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { ConfirmButton } from '../../ui/Dialog';
import { CheckField, Field, FormError, FormProblems } from '../../ui/Field';
import { count, dateTime } from '../../ui/format';
import { Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import type { ProductBody } from './catalog';
import './catalog.css';
import {
  emptyProduct,
  emptyVariant,
  productBody,
  productChecks,
  productDraft,
  productFieldOf,
  type VariantDraft,
} from './product-draft';
import { VariantEditor } from './VariantEditor';

type ImageKind = 'thumbnail' | 'seo';

async function uploadImage(shopId: number, productId: number, kind: ImageKind, file: File) {
  const form = new FormData();
  form.append('file', file);
  const params = { path: { shopId, productId } };
  // The typed body is a placeholder: the serializer sends the multipart form with its `file` part.
  const options = { params, body: { file: '' }, bodySerializer: () => form };
  return kind === 'thumbnail'
    ? unwrap(api.POST('/self/{shopId}/v2/products/{productId}/thumbnail', options))
    : unwrap(api.POST('/self/{shopId}/v2/products/{productId}/seo/image', options));
}

export default function ProductEditScreen() {
  const { productId: productIdText } = useParams<{ productId?: string }>();
  const { shopId } = useShop();
  const productId = productIdText ? Number(productIdText) : null;
  const product = useProduct(shopId, productId);
  if (productId === null) return <ProductForm key="new" product={null} />;
  if (product.error) return <LoadError error={product.error} retry={() => product.refetch()} />;
  if (!product.data) return <Loading label="Loading the product…" />;
  return <ProductForm key={productId} product={product.data} />;
}

const visibilityFlags = [
  ['unlisted', 'Unlisted', 'Reachable by its address, but not listed on the storefront.'],
  ['private', 'Private', 'Shown nowhere public.'],
  ['onHold', 'On hold', 'Shown, but cannot be bought.'],
  ['isInternal', 'Internal', 'Never public; for your own manual or custom sales.'],
] as const;

function ProductForm(props: { product: Product | null }) {
  const { shopId, currency } = useShop();
  const shopPath = useShopPath();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const notify = useToast();
  const saved = props.product;
  const form = useBodyForm({
    operation: saved ? 'PUT /self/{shopId}/v2/products/{productId}' : 'POST /self/{shopId}/v2/products',
    defaultValues: saved ? productDraft(saved) : emptyProduct(),
    toBody: productBody,
    fieldOf: productFieldOf,
    check: productChecks,
  });
  const { register, problem } = form;
  // Images picked for a product not created yet: uploaded once it is.
  const [pending, setPending] = useState<Partial<Record<ImageKind, File>>>({});

  const invalidate = () =>
    Promise.all(
      [queryKeys.products.all, queryKeys.listings.all, queryKeys.groups.all].map((key) =>
        queryClient.invalidateQueries({ queryKey: key(shopId) }),
      ),
    );

  const save = useMutation({
    mutationFn: async (body: ProductBody) => {
      if (saved)
        return unwrap(
          api.PUT('/self/{shopId}/v2/products/{productId}', {
            params: { path: { shopId, productId: saved.id } },
            body,
          }),
        );
      const created = await unwrap(api.POST('/self/{shopId}/v2/products', { params: { path: { shopId } }, body }));
      for (const [kind, file] of Object.entries(pending) as [ImageKind, File][])
        await uploadImage(shopId, created.id, kind, file).catch(() =>
          notify(
            `The product was created, but its ${kind === 'thumbnail' ? 'thumbnail' : 'SEO image'} was not uploaded`,
            'bad',
          ),
        );
      return created;
    },
    onSuccess: async (answer) => {
      queryClient.setQueryData(queryKeys.products.one(shopId, answer.id), answer);
      // A save answers the product as stored: the form shows it (new variants get their ids). A
      // re-read for any other reason (a restock, a refetch) leaves the owner's unsaved edits alone.
      if (saved) form.reset(productDraft(answer));
      notify(saved ? 'Product saved' : 'Product created');
      await invalidate();
      if (!saved) navigate(shopPath(`/products/${answer.id}`), { replace: true });
    },
  });

  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/self/{shopId}/products/{productId}', { params: { path: { shopId, productId: saved!.id } } })),
    onSuccess: async () => {
      notify('Product deleted');
      // Away first: the editor, still on screen, would otherwise read the deleted product again (a 404).
      navigate(shopPath('/products'));
      queryClient.removeQueries({ queryKey: queryKeys.products.one(shopId, saved!.id) });
      await invalidate();
    },
  });

  const variants = form.watch('variants');
  const setVariants = (next: VariantDraft[]) => form.setValue('variants', next, { shouldDirty: true });

  return (
    <Page
      title={saved ? saved.title : 'New product'}
      back={
        <Link href={shopPath('/products')} className="small">
          ← Products
        </Link>
      }
      actions={
        saved ? (
          <ConfirmButton
            label="Delete product"
            question={`Delete "${saved.title}"? It leaves the catalog and the storefront; orders keep their copy.`}
            onConfirm={() => remove.mutate()}
            danger
            disabled={remove.isPending}
          />
        ) : null
      }
    >
      <FormError error={remove.error} />
      <form className="stack" noValidate onSubmit={form.submit(save.mutateAsync)}>
        <FormProblems form={form} error={save.error} />

        <Card title="Product">
          <div className="stack">
            <Field label="Title" error={problem('title')}>
              {(ids) => <input {...ids} {...register('title')} className="input" />}
            </Field>
            <Field label="Short description" error={problem('shortDescription')}>
              {(ids) => <input {...ids} {...register('shortDescription')} className="input" />}
            </Field>
            <Field label="Description" error={problem('description')}>
              {(ids) => <textarea {...ids} {...register('description')} className="input" rows={6} />}
            </Field>
            <Field
              label="Path"
              error={problem('path')}
              hint={saved ? 'The address of the product page.' : 'Leave empty to make it from the title.'}
            >
              {(ids) => <input {...ids} {...register('path')} className="input" />}
            </Field>
            {saved ? (
              <p className="muted small">
                Created {dateTime(saved.createdAt)} · updated {dateTime(saved.updatedAt)}
              </p>
            ) : null}
          </div>
        </Card>

        <Card
          title="Variants"
          actions={
            <button
              type="button"
              className="btn"
              disabled={variants.length >= 50}
              onClick={() => setVariants([...form.getValues('variants'), emptyVariant(variants.length)])}
            >
              Add variant
            </button>
          }
        >
          <div className="stack">
            {variants.map((variant, index) => (
              <VariantEditor
                key={variant.key}
                form={form}
                index={index}
                currency={currency}
                shopId={shopId}
                productId={saved?.id ?? null}
                canRemove={variants.length > 1}
                onRemove={() => setVariants(form.getValues('variants').filter((v) => v.key !== variant.key))}
                onRestocked={() => queryClient.invalidateQueries({ queryKey: queryKeys.products.list(shopId) })}
              />
            ))}
            {problem('variants') ? <p className="field-error">{problem('variants')}</p> : null}
          </div>
        </Card>

        <Card title="Visibility">
          <fieldset className="catalog-subgroup">
            <legend>Where the product shows</legend>
            {visibilityFlags.map(([key, label, hint]) => (
              <CheckField key={key} {...register(key)} error={problem(key)}>
                <span>
                  {label} <span className="muted small">— {hint}</span>
                </span>
              </CheckField>
            ))}
          </fieldset>
        </Card>

        <Card title="Images">
          <div className="grid-2">
            <ImageField
              label="Thumbnail"
              url={saved?.thumbnailUrl ?? null}
              productId={saved?.id ?? null}
              kind="thumbnail"
              pending={pending.thumbnail}
              onPending={(file) => setPending((p) => ({ ...p, thumbnail: file }))}
            />
            <ImageField
              label="SEO image"
              url={saved?.seo.imageUrl ?? null}
              productId={saved?.id ?? null}
              kind="seo"
              pending={pending.seo}
              onPending={(file) => setPending((p) => ({ ...p, seo: file }))}
            />
          </div>
        </Card>

        <Card title="Search engines">
          <div className="stack">
            <Field label="Meta title" error={problem('metaTitle')} hint="Up to 70 characters.">
              {(ids) => <input {...ids} {...register('metaTitle')} className="input" />}
            </Field>
            <Field label="Meta description" error={problem('metaDescription')} hint="Up to 160 characters.">
              {(ids) => <textarea {...ids} {...register('metaDescription')} className="input" rows={2} />}
            </Field>
          </div>
        </Card>

        <Card title="After purchase">
          <div className="stack">
            <Field label="Customer note" error={problem('customerNote')} hint="Shown to the buyer with the delivery.">
              {(ids) => <textarea {...ids} {...register('customerNote')} className="input" rows={3} />}
            </Field>
            <fieldset className="catalog-subgroup">
              <legend>Chat integration</legend>
              <CheckField {...register('chatEnabled')}>Keep the buyer's chat user id on the order</CheckField>
              <CheckField {...register('chatRequired')}>Require a chat user id at checkout</CheckField>
              <div className="grid-2">
                <Field label="Guild id" error={problem('guildId')}>
                  {(ids) => <input {...ids} {...register('guildId')} className="input" inputMode="numeric" />}
                </Field>
                <Field label="Role ids" error={problem('roleIds')} hint="Separated by commas.">
                  {(ids) => <input {...ids} {...register('roleIds')} className="input" />}
                </Field>
              </div>
              {problem('chatIntegration') ? <p className="field-error">{problem('chatIntegration')}</p> : null}
            </fieldset>
          </div>
        </Card>

        <div className="catalog-actions">
          <button type="submit" className="btn btn-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
          <Link href={shopPath('/products')} className="btn">
            Cancel
          </Link>
          {saved ? <span className="muted small">{count(saved.variants.length)} variant(s) saved</span> : null}
        </div>
      </form>
    </Page>
  );
}

/** An image of the product: uploaded at once for a saved product, after creation for a new one. */
function ImageField(props: {
  label: string;
  url: string | null;
  productId: number | null;
  kind: ImageKind;
  pending: File | undefined;
  onPending: (file: File) => void;
}) {
  const { shopId } = useShop();
  const queryClient = useQueryClient();
  const notify = useToast();
  const upload = useMutation({
    mutationFn: (file: File) => uploadImage(shopId, props.productId!, props.kind, file),
    onSuccess: async () => {
      notify(`${props.label} uploaded`);
      // Not the product itself: refetching it would reset the form's unsaved edits.
      await queryClient.invalidateQueries({ queryKey: queryKeys.products.list(shopId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.listings.all(shopId) });
    },
  });
  const blob = useMemo(() => (props.pending ? URL.createObjectURL(props.pending) : null), [props.pending]);
  useEffect(() => () => (blob ? URL.revokeObjectURL(blob) : undefined), [blob]);
  const preview = blob ?? upload.data?.url ?? props.url;
  return (
    <div className="stack">
      {preview ? <img src={preview} alt={`${props.label} preview`} className="catalog-thumb" /> : null}
      <Field
        label={props.label}
        error={upload.error instanceof Error ? upload.error.message : undefined}
        hint={
          props.productId === null
            ? 'Uploaded when the product is created. PNG, JPEG, WebP or GIF.'
            : upload.isPending
              ? 'Uploading…'
              : 'PNG, JPEG, WebP or GIF; replaces the current image.'
        }
      >
        {(ids) => (
          <input
            {...ids}
            type="file"
            accept="image/png,image/jpeg,image/webp,image/gif"
            disabled={upload.isPending}
            onChange={(x) => {
              const file = x.target.files?.[0];
              if (!file) return;
              if (props.productId === null) props.onPending(file);
              else upload.mutate(file);
              x.target.value = '';
            }}
          />
        )}
      </Field>
    </div>
  );
}
