import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import { type Product, useProduct } from '../../api/queries/products';
import { useShop, useShopPath } from '../../app/shop';
import { useShopDates } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { ConfirmButton } from '../../ui/Dialog';
import { CheckField, Field, FormError, FormProblems } from '../../ui/Field';
import { count } from '../../ui/format';
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
  if (!product.data) return <Loading label={strings.productEdit.loadingTheProduct} />;
  return <ProductForm key={productId} product={product.data} />;
}

const visibilityFlags = [
  ['unlisted', strings.productEdit.unlisted, strings.productEdit.reachableByItsAddress],
  ['private', strings.productEdit.private, strings.productEdit.shownNowherePublic],
  ['onHold', strings.productEdit.onHold, strings.productEdit.shownButCannotBe],
  ['isInternal', strings.productEdit.internal, strings.productEdit.neverPublicForYour],
] as const;

function ProductForm(props: { product: Product | null }) {
  const dates = useShopDates();
  const { dateTime } = dates;
  const { shopId, currency } = useShop();
  const shopPath = useShopPath();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const notify = useToast();
  const saved = props.product;
  const form = useBodyForm({
    operation: saved ? 'PUT /self/{shopId}/v2/products/{productId}' : 'POST /self/{shopId}/v2/products',
    defaultValues: saved ? productDraft(saved, dates) : emptyProduct(),
    toBody: (draft) => productBody(draft, dates),
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
            strings.productEdit.theProductWasCreated(
              kind === 'thumbnail' ? strings.productEdit.thumbnailWord : strings.common.seoImage,
            ),
            'bad',
          ),
        );
      return created;
    },
    onSuccess: async (answer) => {
      queryClient.setQueryData(queryKeys.products.one(shopId, answer.id), answer);
      // A save answers the product as stored: the form shows it (new variants get their ids). A
      // re-read for any other reason (a restock, a refetch) leaves the owner's unsaved edits alone.
      if (saved) form.reset(productDraft(answer, dates));
      notify(saved ? strings.productEdit.productSaved : strings.productEdit.productCreated);
      await invalidate();
      if (!saved) navigate(shopPath(`/products/${answer.id}`), { replace: true });
    },
  });

  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/self/{shopId}/products/{productId}', { params: { path: { shopId, productId: saved!.id } } })),
    onSuccess: async () => {
      notify(strings.productEdit.productDeleted);
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
      title={saved ? saved.title : strings.productEdit.newProduct}
      back={
        <Link href={shopPath('/products')} className="small">
          {strings.productEdit.products}
        </Link>
      }
      actions={
        saved ? (
          <ConfirmButton
            label={strings.productEdit.deleteProduct}
            question={strings.productEdit.deleteItLeavesThe(saved.title)}
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

        <Card title={strings.common.product}>
          <div className="stack">
            <Field label={strings.common.title} error={problem('title')}>
              {(ids) => <input {...ids} {...register('title')} className="input" />}
            </Field>
            <Field label={strings.common.shortDescription} error={problem('shortDescription')}>
              {(ids) => <input {...ids} {...register('shortDescription')} className="input" />}
            </Field>
            <Field label={strings.common.description} error={problem('description')}>
              {(ids) => <textarea {...ids} {...register('description')} className="input" rows={6} />}
            </Field>
            <Field
              label={strings.common.path}
              error={problem('path')}
              hint={saved ? strings.productEdit.theAddressOfThe : strings.productEdit.leaveEmptyToMake}
            >
              {(ids) => <input {...ids} {...register('path')} className="input" />}
            </Field>
            {saved ? (
              <p className="muted small">
                {strings.productEdit.createdUpdated(dateTime(saved.createdAt), dateTime(saved.updatedAt))}
              </p>
            ) : null}
          </div>
        </Card>

        <Card
          title={strings.common.variants}
          actions={
            <button
              type="button"
              className="btn"
              disabled={variants.length >= 50}
              onClick={() => setVariants([...form.getValues('variants'), emptyVariant(variants.length)])}
            >
              {strings.productEdit.addVariant}
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

        <Card title={strings.common.visibility}>
          <fieldset className="catalog-subgroup">
            <legend>{strings.productEdit.whereTheProductShows}</legend>
            {visibilityFlags.map(([key, label, hint]) => (
              <CheckField key={key} {...register(key)} error={problem(key)}>
                <span>
                  {label} <span className="muted small">— {hint}</span>
                </span>
              </CheckField>
            ))}
          </fieldset>
        </Card>

        <Card title={strings.common.images}>
          <div className="grid-2">
            <ImageField
              label={strings.productEdit.thumbnail}
              url={saved?.thumbnailUrl ?? null}
              productId={saved?.id ?? null}
              kind="thumbnail"
              pending={pending.thumbnail}
              onPending={(file) => setPending((p) => ({ ...p, thumbnail: file }))}
            />
            <ImageField
              label={strings.common.seoImage}
              url={saved?.seo.imageUrl ?? null}
              productId={saved?.id ?? null}
              kind="seo"
              pending={pending.seo}
              onPending={(file) => setPending((p) => ({ ...p, seo: file }))}
            />
          </div>
          <GalleryField productId={saved?.id ?? null} images={saved?.images ?? []} />
        </Card>

        <Card title={strings.common.searchEngines}>
          <div className="stack">
            <Field
              label={strings.common.metaTitle}
              error={problem('metaTitle')}
              hint={strings.productEdit.upTo70Characters}
            >
              {(ids) => <input {...ids} {...register('metaTitle')} className="input" />}
            </Field>
            <Field
              label={strings.common.metaDescription}
              error={problem('metaDescription')}
              hint={strings.productEdit.upTo160Characters}
            >
              {(ids) => <textarea {...ids} {...register('metaDescription')} className="input" rows={2} />}
            </Field>
          </div>
        </Card>

        <Card title={strings.common.afterPurchase}>
          <div className="stack">
            <Field
              label={strings.productEdit.customerNote}
              error={problem('customerNote')}
              hint={strings.productEdit.shownToTheBuyer}
            >
              {(ids) => <textarea {...ids} {...register('customerNote')} className="input" rows={3} />}
            </Field>
            <fieldset className="catalog-subgroup">
              <legend>{strings.productEdit.chatIntegration}</legend>
              <CheckField {...register('chatEnabled')}>{strings.productEdit.keepTheBuyersChat}</CheckField>
              <CheckField {...register('chatRequired')}>{strings.productEdit.requireAChatUser}</CheckField>
              <div className="grid-2">
                <Field label={strings.productEdit.guildId} error={problem('guildId')}>
                  {(ids) => <input {...ids} {...register('guildId')} className="input" inputMode="numeric" />}
                </Field>
                <Field
                  label={strings.productEdit.roleIds}
                  error={problem('roleIds')}
                  hint={strings.productEdit.separatedByCommas}
                >
                  {(ids) => <input {...ids} {...register('roleIds')} className="input" />}
                </Field>
              </div>
              {problem('chatIntegration') ? <p className="field-error">{problem('chatIntegration')}</p> : null}
            </fieldset>
          </div>
        </Card>

        <div className="catalog-actions">
          <button type="submit" className="btn btn-primary" disabled={save.isPending}>
            {save.isPending ? strings.common.saving : strings.common.save}
          </button>
          <Link href={shopPath('/products')} className="btn">
            {strings.common.cancel}
          </Link>
          {saved ? (
            <span className="muted small">{strings.productEdit.variantSSaved(count(saved.variants.length))}</span>
          ) : null}
        </div>
      </form>
    </Page>
  );
}

/** How many images a gallery holds (the API's limit, which answers 409 beyond it). */
const GALLERY_MAX = 12;

type GalleryImage = Product['images'][number];

/**
 * The product's gallery: each image with its description, moved earlier or later, removed; a new
 * one added at the end. Every change is saved at once (the API answers the gallery as it now is).
 */
function GalleryField(props: { productId: number | null; images: GalleryImage[] }) {
  const { shopId } = useShop();
  const notify = useToast();
  const queryClient = useQueryClient();
  const [images, setImages] = useState(props.images);
  const [alts, setAlts] = useState<Record<number, string>>({});
  const path = (productId: number) => ({ params: { path: { shopId, productId } } });
  const refreshLists = () => queryClient.invalidateQueries({ queryKey: queryKeys.listings.all(shopId) });
  const add = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      return unwrap(
        api.POST('/self/{shopId}/v2/products/{productId}/images', {
          ...path(props.productId!),
          // The typed body is a placeholder: the serializer sends the multipart form with its `file` part.
          body: { file: '' },
          bodySerializer: () => form,
        }),
      );
    },
    onSuccess: async (image) => {
      setImages((list) => [...list, image]);
      notify(strings.productEdit.imageAdded);
      await refreshLists();
    },
  });
  const arrange = useMutation({
    mutationFn: (list: GalleryImage[]) =>
      unwrap(
        api.PUT('/self/{shopId}/v2/products/{productId}/images', {
          ...path(props.productId!),
          body: { images: list.map((i) => ({ id: i.id, alt: alts[i.id] ?? i.alt })) },
        }),
      ),
    onSuccess: (list) => {
      setImages(list);
      setAlts({});
    },
  });
  const remove = useMutation({
    mutationFn: (imageId: number) =>
      unwrap(
        api.DELETE('/self/{shopId}/v2/products/{productId}/images/{imageId}', {
          params: { path: { shopId, productId: props.productId!, imageId } },
        }),
      ),
    onSuccess: async (_answer, imageId) => {
      setImages((list) => list.filter((i) => i.id !== imageId));
      notify(strings.productEdit.imageRemoved);
      await refreshLists();
    },
  });
  if (props.productId === null) return <p className="muted small">{strings.productEdit.galleryAfterCreate}</p>;
  const move = (index: number, by: -1 | 1) => {
    const list = [...images];
    const [image] = list.splice(index, 1);
    list.splice(index + by, 0, image!);
    arrange.mutate(list);
  };
  const busy = add.isPending || arrange.isPending || remove.isPending;
  const failure = [add.error, arrange.error, remove.error].find((e) => e instanceof Error) as Error | undefined;
  return (
    <fieldset className="stack gallery-editor">
      <legend>{strings.productEdit.gallery}</legend>
      <p className="muted small">{strings.productEdit.galleryHint(GALLERY_MAX)}</p>
      {failure ? <FormError error={failure} /> : null}
      <ol className="gallery-list">
        {images.map((image, index) => {
          const n = index + 1;
          return (
            <li key={image.id} className="gallery-item">
              <img src={image.url} alt={strings.productEdit.galleryImage(n)} className="catalog-thumb" />
              <Field label={strings.productEdit.imageDescription(n)} hint={strings.productEdit.imageDescriptionHint}>
                {(ids) => (
                  <input
                    {...ids}
                    className="input"
                    maxLength={300}
                    value={alts[image.id] ?? image.alt}
                    onChange={(e) => setAlts((a) => ({ ...a, [image.id]: e.target.value }))}
                    onBlur={() => {
                      if ((alts[image.id] ?? image.alt) !== image.alt) arrange.mutate(images);
                    }}
                  />
                )}
              </Field>
              <div className="row">
                <button
                  type="button"
                  className="btn"
                  disabled={busy || index === 0}
                  aria-label={strings.productEdit.moveEarlier(n)}
                  onClick={() => move(index, -1)}
                >
                  {strings.productEdit.earlier}
                </button>
                <button
                  type="button"
                  className="btn"
                  disabled={busy || index === images.length - 1}
                  aria-label={strings.productEdit.moveLater(n)}
                  onClick={() => move(index, 1)}
                >
                  {strings.productEdit.later}
                </button>
                <button
                  type="button"
                  className="btn btn-danger"
                  disabled={busy}
                  onClick={() => remove.mutate(image.id)}
                >
                  {strings.productEdit.removeImage(n)}
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      {images.length >= GALLERY_MAX ? (
        <p className="muted small">{strings.productEdit.galleryFull(GALLERY_MAX)}</p>
      ) : (
        <Field label={strings.productEdit.addImage} hint={add.isPending ? strings.common.uploading : undefined}>
          {(ids) => (
            <input
              {...ids}
              type="file"
              accept="image/png,image/jpeg,image/webp,image/gif"
              disabled={busy}
              onChange={(x) => {
                const file = x.target.files?.[0];
                if (file) add.mutate(file);
                x.target.value = '';
              }}
            />
          )}
        </Field>
      )}
    </fieldset>
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
      notify(strings.productEdit.uploaded(props.label));
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
      {preview ? <img src={preview} alt={strings.productEdit.preview(props.label)} className="catalog-thumb" /> : null}
      <Field
        label={props.label}
        error={upload.error instanceof Error ? upload.error.message : undefined}
        hint={
          props.productId === null
            ? strings.productEdit.uploadedWhenTheProduct
            : upload.isPending
              ? strings.common.uploading
              : strings.productEdit.pngJpegWebpOr
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
