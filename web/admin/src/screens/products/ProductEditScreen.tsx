import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import { useShop, useShopPath } from '../../app/shop';
import { ConfirmButton } from '../../ui/Dialog';
import { Field, FormError } from '../../ui/Field';
import { count, dateTime } from '../../ui/format';
import { Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { errorAt, type Product } from './catalog';
import './catalog.css';
import { emptyProduct, emptyVariant, type ProductDraft, productBody, productDraft, shownPaths } from './product-draft';
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
  const product = useQuery({
    queryKey: ['shop', shopId, 'products', 'one', productId],
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/v2/products/{productId}', { params: { path: { shopId, productId: productId! } } }),
      ),
    enabled: productId !== null,
  });
  if (productId === null) return <ProductForm key="new" product={null} />;
  if (product.error) return <LoadError error={product.error} retry={() => product.refetch()} />;
  if (!product.data) return <Loading label="Loading the product…" />;
  return <ProductForm key={productId} product={product.data} />;
}

function ProductForm(props: { product: Product | null }) {
  const { shopId, currency } = useShop();
  const shopPath = useShopPath();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const notify = useToast();
  const saved = props.product;
  const [draft, setDraft] = useState<ProductDraft>(() => (saved ? productDraft(saved) : emptyProduct()));
  const [pending, setPending] = useState<Partial<Record<ImageKind, File>>>({});

  const invalidate = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'products'] }),
      queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'listings'] }),
      queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'groups'] }),
    ]);

  const save = useMutation({
    mutationFn: async (d: ProductDraft) => {
      const body = productBody(d);
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
      queryClient.setQueryData(['shop', shopId, 'products', 'one', answer.id], answer);
      // A save answers the product as stored: the form shows it (new variants get their ids). A
      // re-read for any other reason (a restock, a refetch) leaves the owner's unsaved edits alone.
      if (saved) setDraft(productDraft(answer));
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
      queryClient.removeQueries({ queryKey: ['shop', shopId, 'products', 'one', saved!.id] });
      await invalidate();
    },
  });

  const set = <K extends keyof ProductDraft>(key: K, value: ProductDraft[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const e = (path: string) => errorAt(save.error, path);

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
      <form
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate(draft);
        }}
      >
        <FormError error={save.error} fields={shownPaths(draft)} />

        <Card title="Product">
          <div className="stack">
            <Field label="Title" error={e('title')}>
              {(ids) => (
                <input {...ids} className="input" value={draft.title} onChange={(x) => set('title', x.target.value)} />
              )}
            </Field>
            <Field label="Short description" error={e('shortDescription')}>
              {(ids) => (
                <input
                  {...ids}
                  className="input"
                  value={draft.shortDescription}
                  onChange={(x) => set('shortDescription', x.target.value)}
                />
              )}
            </Field>
            <Field label="Description" error={e('description')}>
              {(ids) => (
                <textarea
                  {...ids}
                  className="input"
                  rows={6}
                  value={draft.description}
                  onChange={(x) => set('description', x.target.value)}
                />
              )}
            </Field>
            <Field
              label="Path"
              error={e('path')}
              hint={saved ? 'The address of the product page.' : 'Leave empty to make it from the title.'}
            >
              {(ids) => (
                <input {...ids} className="input" value={draft.path} onChange={(x) => set('path', x.target.value)} />
              )}
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
              disabled={draft.variants.length >= 50}
              onClick={() => set('variants', [...draft.variants, emptyVariant(draft.variants.length)])}
            >
              Add variant
            </button>
          }
        >
          <div className="stack">
            {draft.variants.map((variant, index) => (
              <VariantEditor
                key={variant.key}
                variant={variant}
                index={index}
                currency={currency}
                shopId={shopId}
                productId={saved?.id ?? null}
                error={save.error}
                canRemove={draft.variants.length > 1}
                onChange={(change) =>
                  setDraft((d) => ({
                    ...d,
                    variants: d.variants.map((v) => (v.key === variant.key ? { ...v, ...change(v) } : v)),
                  }))
                }
                onRemove={() => setDraft((d) => ({ ...d, variants: d.variants.filter((v) => v.key !== variant.key) }))}
                onRestocked={() => queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'products', 'list'] })}
              />
            ))}
            {e('variants') ? <p className="field-error">{e('variants')}</p> : null}
          </div>
        </Card>

        <Card title="Visibility">
          <fieldset className="catalog-subgroup">
            <legend>Where the product shows</legend>
            {(
              [
                ['unlisted', 'Unlisted', 'Reachable by its address, but not listed on the storefront.'],
                ['private', 'Private', 'Shown nowhere public.'],
                ['onHold', 'On hold', 'Shown, but cannot be bought.'],
                ['isInternal', 'Internal', 'Never public; for your own manual or custom sales.'],
              ] as const
            ).map(([key, label, hint]) => (
              <label key={key} className="check">
                <input type="checkbox" checked={draft[key]} onChange={(x) => set(key, x.target.checked)} />
                <span>
                  {label} <span className="muted small">— {hint}</span>
                </span>
              </label>
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
            <Field label="Meta title" error={e('seo.metaTitle')} hint="Up to 70 characters.">
              {(ids) => (
                <input
                  {...ids}
                  className="input"
                  value={draft.metaTitle}
                  onChange={(x) => set('metaTitle', x.target.value)}
                />
              )}
            </Field>
            <Field label="Meta description" error={e('seo.metaDescription')} hint="Up to 160 characters.">
              {(ids) => (
                <textarea
                  {...ids}
                  className="input"
                  rows={2}
                  value={draft.metaDescription}
                  onChange={(x) => set('metaDescription', x.target.value)}
                />
              )}
            </Field>
          </div>
        </Card>

        <Card title="After purchase">
          <div className="stack">
            <Field label="Customer note" error={e('customerNote')} hint="Shown to the buyer with the delivery.">
              {(ids) => (
                <textarea
                  {...ids}
                  className="input"
                  rows={3}
                  value={draft.customerNote}
                  onChange={(x) => set('customerNote', x.target.value)}
                />
              )}
            </Field>
            <fieldset className="catalog-subgroup">
              <legend>Chat integration</legend>
              <label className="check">
                <input
                  type="checkbox"
                  checked={draft.chatEnabled}
                  onChange={(x) => set('chatEnabled', x.target.checked)}
                />
                Keep the buyer's chat user id on the order
              </label>
              <label className="check">
                <input
                  type="checkbox"
                  checked={draft.chatRequired}
                  onChange={(x) => set('chatRequired', x.target.checked)}
                />
                Require a chat user id at checkout
              </label>
              <div className="grid-2">
                <Field label="Guild id" error={e('chatIntegration.guildId')}>
                  {(ids) => (
                    <input
                      {...ids}
                      className="input"
                      inputMode="numeric"
                      value={draft.guildId}
                      onChange={(x) => set('guildId', x.target.value)}
                    />
                  )}
                </Field>
                <Field label="Role ids" error={e('chatIntegration.roleIds')} hint="Separated by commas.">
                  {(ids) => (
                    <input
                      {...ids}
                      className="input"
                      value={draft.roleIds}
                      onChange={(x) => set('roleIds', x.target.value)}
                    />
                  )}
                </Field>
              </div>
              {e('chatIntegration') && !e('chatIntegration.guildId') && !e('chatIntegration.roleIds') ? (
                <p className="field-error">{e('chatIntegration')}</p>
              ) : null}
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
      await queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'products', 'list'] });
      await queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'listings'] });
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
