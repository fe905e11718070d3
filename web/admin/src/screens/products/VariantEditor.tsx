import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import { useGateways } from '../../api/queries/settings';
import { type BodyForm, useBodyForm } from '../../forms/body-form';
import { CheckField, Field, FormProblems } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { useToast } from '../../ui/Toast';
import { gatewayLabel } from '../orders/orders';
import {
  type CustomFieldType,
  customFieldTypeLabels,
  DEFAULT_KEY_PATTERN,
  type Gateway,
  licensedTypes,
  type ProductType,
  productTypeLabels,
  type RestockAnswer,
} from './catalog';
import { FilePicker } from './FilePicker';
import { type CustomFieldDraft, type GatewayDraft, newKey, type ProductDraft } from './product-draft';

type ProductForm = BodyForm<ProductDraft, unknown>;

/** One variant of the product form: price, what it delivers, stock, gateways, custom fields, warranty. */
export function VariantEditor(props: {
  form: ProductForm;
  index: number;
  currency: string;
  shopId: number;
  productId: number | null;
  canRemove: boolean;
  onRemove: () => void;
  onRestocked: () => void;
}) {
  const { form, index } = props;
  const { register } = form;
  const at = `variants.${index}` as const;
  const v = form.watch(at);
  const problem = (name: string) => form.problem(`${at}.${name}`);
  const name = `Variant ${index + 1}${v.title ? `: ${v.title}` : ''}`;
  const gateways = useGateways(props.shopId);
  const setGateways = (next: GatewayDraft[]) => form.setValue(`${at}.gateways`, next, { shouldDirty: true });

  return (
    <fieldset className="catalog-variant" aria-label={`Variant ${index + 1}`}>
      <legend>{name}</legend>
      {problem('id') ? <p className="field-error">{problem('id')}</p> : null}
      <div className="grid">
        <Field label="Variant title" error={problem('title')}>
          {(ids) => <input {...ids} {...register(`${at}.title`)} className="input" />}
        </Field>
        <Field label="Price" error={problem('price')} hint={`In ${props.currency}.`}>
          {(ids) => <input {...ids} {...register(`${at}.price`)} className="input" inputMode="decimal" />}
        </Field>
        <Field label="Product type" error={problem('productType')}>
          {(ids) => (
            <select {...ids} {...register(`${at}.productType`)} className="input">
              {(Object.keys(productTypeLabels) as ProductType[]).map((type) => (
                <option key={type} value={type}>
                  {productTypeLabels[type]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Variant description" error={problem('description')}>
        {(ids) => <textarea {...ids} {...register(`${at}.description`)} className="input" rows={2} />}
      </Field>

      <fieldset className="catalog-subgroup">
        <legend>Delivery and stock</legend>
        {v.id !== null ? (
          <p className="small muted" aria-live="polite">
            In stock now: {v.stockNow === null ? 'unlimited' : count(v.stockNow)}
          </p>
        ) : null}
        {v.productType === 'serials' ? (
          <>
            {v.id === null ? (
              <Field
                label="Serial keys (one per line)"
                error={problem('serials')}
                hint="One key per line; each line is one unit of stock, sold to one buyer. A key listed twice is sold twice unless duplicates are removed (below)."
              >
                {(ids) => (
                  <textarea {...ids} {...register(`${at}.serials`)} className="input catalog-serials" rows={5} />
                )}
              </Field>
            ) : (
              <details>
                <summary>Edit the keys in stock</summary>
                <Field
                  label="Serials in stock (one per line)"
                  error={problem('serials')}
                  hint="Saved with the product. Removing a line takes that key out of stock; a sold key never comes back."
                >
                  {(ids) => (
                    <textarea {...ids} {...register(`${at}.serials`)} className="input catalog-serials" rows={6} />
                  )}
                </Field>
              </details>
            )}
            <CheckField
              {...register(`${at}.removeDuplicates`)}
              error={problem('removeDuplicates')}
              hint="Each key is then sold once. Turn it off for keys meant to be shared, listing such a key once per sale."
            >
              Remove duplicate keys
            </CheckField>
          </>
        ) : (
          <>
            <Field label="Stock" error={problem('stock')} hint="Leave empty for unlimited stock.">
              {(ids) => <input {...ids} {...register(`${at}.stock`)} className="input" inputMode="numeric" />}
            </Field>
            {v.productType === 'service' ? (
              <Field label="Delivered text" error={problem('text')} hint="What the buyer receives.">
                {(ids) => <textarea {...ids} {...register(`${at}.text`)} className="input" rows={3} />}
              </Field>
            ) : v.productType === 'file' ? (
              <>
                <FilePicker
                  shopId={props.shopId}
                  variantName={name}
                  chosen={v.files}
                  onChange={(files) => form.setValue(`${at}.files`, files, { shouldDirty: true })}
                  error={problem('files')}
                />
                <div className="grid">
                  <Field
                    label="Download limit"
                    error={problem('downloadLimit')}
                    hint="Downloads of each file per order; 0 = unlimited. A resumed download does not count."
                  >
                    {(ids) => (
                      <input {...ids} {...register(`${at}.downloadLimit`)} className="input" inputMode="numeric" />
                    )}
                  </Field>
                  <Field
                    label="Link hours"
                    error={problem('linkHours')}
                    hint="How long a download link works; a fresh one is issued whenever the buyer opens the order."
                  >
                    {(ids) => <input {...ids} {...register(`${at}.linkHours`)} className="input" inputMode="numeric" />}
                  </Field>
                </div>
              </>
            ) : (
              <Field
                label="External URL"
                error={problem('externalUrl')}
                hint="https address we POST the order to at delivery; its answer is delivered."
              >
                {(ids) => <input {...ids} {...register(`${at}.externalUrl`)} type="url" className="input" />}
              </Field>
            )}
          </>
        )}
        <div className="grid">
          <Field label="Minimum quantity" error={problem('minAmount')} hint="Empty: 1.">
            {(ids) => <input {...ids} {...register(`${at}.minAmount`)} className="input" inputMode="numeric" />}
          </Field>
          <Field label="Maximum quantity" error={problem('maxAmount')} hint="Empty: no limit.">
            {(ids) => <input {...ids} {...register(`${at}.maxAmount`)} className="input" inputMode="numeric" />}
          </Field>
        </div>
        {v.productType === 'serials' && v.id !== null && props.productId !== null ? (
          <RestockSerials
            shopId={props.shopId}
            productId={props.productId}
            variantId={v.id}
            onAdded={(answer) => {
              const current = form.getValues(at);
              const savedSerials = [current.savedSerials, ...answer.added].filter(Boolean).join('\n');
              form.setValue(`${at}.stockNow`, answer.stock);
              form.setValue(`${at}.savedSerials`, savedSerials);
              // Unedited, the list follows the stock; edited, the owner's text stays.
              if (current.serials === current.savedSerials) form.setValue(`${at}.serials`, savedSerials);
              props.onRestocked();
            }}
          />
        ) : null}
      </fieldset>

      {licensedTypes.includes(v.productType) ? <LicenseSettings form={form} index={index} /> : null}

      <fieldset className="catalog-subgroup">
        <legend>Payment methods</legend>
        <p className="small muted">
          None ticked: every gateway enabled in your payment settings, at the variant price.
        </p>
        {gateways.error ? <p className="field-error">{gateways.error.message}</p> : null}
        {(gateways.data ?? []).map((g) => {
          const position = v.gateways.findIndex((x) => x.gateway === g.name);
          return (
            <div key={g.name} className="stack">
              <label className="check">
                <input
                  type="checkbox"
                  checked={position !== -1}
                  onChange={(x) =>
                    setGateways(
                      x.target.checked
                        ? [...v.gateways, { gateway: g.name as Gateway, blockVpn: false, price: '' }]
                        : v.gateways.filter((y) => y.gateway !== g.name),
                    )
                  }
                />
                {gatewayLabel(g.name)}
                {g.enabled ? null : <span className="muted small">(not enabled in settings)</span>}
              </label>
              {position !== -1 ? (
                <div className="row">
                  <Field
                    label={`${gatewayLabel(g.name)} price`}
                    error={problem(`gateways.${position}.price`)}
                    hint={`Empty: ${v.price ? money(v.price, props.currency) : 'the variant price'}.`}
                  >
                    {(ids) => (
                      <input
                        {...ids}
                        {...register(`${at}.gateways.${position}.price`)}
                        className="input"
                        inputMode="decimal"
                      />
                    )}
                  </Field>
                  <label className="check">
                    <input type="checkbox" {...register(`${at}.gateways.${position}.blockVpn`)} />
                    Block VPN buyers on {gatewayLabel(g.name)}
                  </label>
                </div>
              ) : null}
            </div>
          );
        })}
        {problem('gateways') ? <p className="field-error">{problem('gateways')}</p> : null}
      </fieldset>

      <CustomFields form={form} index={index} fields={v.customFields} />

      <fieldset className="catalog-subgroup">
        <legend>After purchase</legend>
        <div className="grid-2">
          <Field label="Variant customer note" error={problem('customerNote')}>
            {(ids) => <textarea {...ids} {...register(`${at}.customerNote`)} className="input" rows={2} />}
          </Field>
          <Field label="Redirect URL" error={problem('redirectUrl')} hint="Where the buyer goes after paying (https).">
            {(ids) => <input {...ids} {...register(`${at}.redirectUrl`)} type="url" className="input" />}
          </Field>
          <Field label="Warranty text" error={problem('warrantyText')}>
            {(ids) => <input {...ids} {...register(`${at}.warrantyText`)} className="input" />}
          </Field>
          <Field label="Warranty (days)" error={problem('warrantyDays')} hint="Empty with no text: no warranty.">
            {(ids) => <input {...ids} {...register(`${at}.warrantyDays`)} className="input" inputMode="decimal" />}
          </Field>
        </div>
      </fieldset>

      {props.canRemove ? (
        <div>
          <button type="button" className="btn btn-danger" onClick={props.onRemove}>
            Remove variant {index + 1}
          </button>
        </div>
      ) : null}
    </fieldset>
  );
}

/** Whether each unit sold is a licence, and its terms: activations, validity, the generated keys' pattern. */
function LicenseSettings(props: { form: ProductForm; index: number }) {
  const { form } = props;
  const { register } = form;
  const at = `variants.${props.index}` as const;
  const v = form.watch(at);
  const problem = (name: string) => form.problem(`${at}.${name}`);
  const serials = v.productType === 'serials';
  return (
    <fieldset className="catalog-subgroup">
      <legend>License</legend>
      <CheckField {...register(`${at}.licenseEnabled`)} error={problem('licenseEnabled')}>
        Issue a license per unit
      </CheckField>
      <p className="small muted">
        {serials
          ? 'Each serial sold becomes a license key your program checks through the license API.'
          : 'A key is generated for each unit sold and delivered like a serial; your program checks it through the license API.'}
      </p>
      {v.licenseEnabled ? (
        <>
          <div className="grid">
            <Field
              label="Activation limit"
              error={problem('activationLimit')}
              hint="Instances a license may be activated on at once. Empty: unlimited."
            >
              {(ids) => <input {...ids} {...register(`${at}.activationLimit`)} className="input" inputMode="numeric" />}
            </Field>
            {serials ? null : (
              <Field
                label="Key pattern"
                error={problem('keyPattern')}
                hint={`Each X becomes a random letter or digit (at least 8 X's). Empty: ${DEFAULT_KEY_PATTERN}.`}
              >
                {(ids) => (
                  <input
                    {...ids}
                    {...register(`${at}.keyPattern`)}
                    className="input catalog-serials"
                    placeholder={DEFAULT_KEY_PATTERN}
                    spellCheck={false}
                  />
                )}
              </Field>
            )}
          </div>
          <fieldset className="catalog-choice">
            <legend>Validity</legend>
            <label className="check">
              <input type="radio" value="never" {...register(`${at}.licenseValidity`)} />
              Never expires
            </label>
            <label className="check">
              <input type="radio" value="days" {...register(`${at}.licenseValidity`)} />
              Some days after the sale
            </label>
            <label className="check">
              <input type="radio" value="date" {...register(`${at}.licenseValidity`)} />
              Until a fixed date
            </label>
          </fieldset>
          {v.licenseValidity === 'days' ? (
            <Field label="Valid for (days)" error={problem('validDays')} hint="Counted from the sale.">
              {(ids) => <input {...ids} {...register(`${at}.validDays`)} className="input" inputMode="numeric" />}
            </Field>
          ) : null}
          {v.licenseValidity === 'date' ? (
            <Field
              label="Expires on"
              error={problem('licenseEndDate')}
              hint="Every license of this variant ends at the end of this day (UTC)."
            >
              {(ids) => <input {...ids} {...register(`${at}.licenseEndDate`)} type="date" className="input" />}
            </Field>
          ) : null}
        </>
      ) : null}
    </fieldset>
  );
}

function CustomFields(props: { form: ProductForm; index: number; fields: CustomFieldDraft[] }) {
  const { form, fields } = props;
  const { register } = form;
  const at = `variants.${props.index}.customFields` as const;
  const setFields = (next: CustomFieldDraft[]) => form.setValue(at, next, { shouldDirty: true });
  const listError = form.problem(at);
  return (
    <fieldset className="catalog-subgroup">
      <legend>Custom fields</legend>
      <p className="small muted">Questions the buyer answers at checkout.</p>
      {fields.map((f, j) => {
        const problem = (name: string) => form.problem(`${at}.${j}.${name}`);
        return (
          <fieldset key={f.key} className="catalog-subgroup" aria-label={`Custom field ${j + 1}`}>
            <legend>Custom field {j + 1}</legend>
            <div className="grid">
              <Field label="Field name" error={problem('name')}>
                {(ids) => <input {...ids} {...register(`${at}.${j}.name`)} className="input" />}
              </Field>
              <Field label="Field type" error={problem('type')}>
                {(ids) => (
                  <select {...ids} {...register(`${at}.${j}.type`)} className="input">
                    {(Object.keys(customFieldTypeLabels) as CustomFieldType[]).map((type) => (
                      <option key={type} value={type}>
                        {customFieldTypeLabels[type]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="Placeholder" error={problem('placeholder')}>
                {(ids) => <input {...ids} {...register(`${at}.${j}.placeholder`)} className="input" />}
              </Field>
              <Field label="Pattern (regular expression)" error={problem('regex')} hint="Optional, e.g. ^[0-9]+$">
                {(ids) => <input {...ids} {...register(`${at}.${j}.regex`)} className="input" />}
              </Field>
              <Field label="Field id" error={problem('id')} hint="Empty: made from the name.">
                {(ids) => <input {...ids} {...register(`${at}.${j}.id`)} className="input" />}
              </Field>
            </div>
            <div className="row">
              <CheckField {...register(`${at}.${j}.required`)} error={problem('required')}>
                Required
              </CheckField>
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => setFields(form.getValues(at).filter((y) => y.key !== f.key))}
              >
                Remove custom field {j + 1}
              </button>
            </div>
          </fieldset>
        );
      })}
      {listError ? <p className="field-error">{listError}</p> : null}
      <div>
        <button
          type="button"
          className="btn"
          disabled={fields.length >= 25}
          onClick={() =>
            setFields([
              ...form.getValues(at),
              { key: newKey(), id: '', name: '', type: 'text', required: false, placeholder: '', regex: '' },
            ])
          }
        >
          Add custom field
        </button>
      </div>
    </fieldset>
  );
}

/** Adds keys to a saved serials variant at once (its own endpoint, not the product save). */
function RestockSerials(props: {
  shopId: number;
  productId: number;
  variantId: number;
  onAdded: (answer: RestockAnswer) => void;
}) {
  const notify = useToast();
  const queryClient = useQueryClient();
  const resultId = useId();
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/v2/products/{productId}/variants/{variantId}/serials',
    defaultValues: { serials: '' },
    toBody: (values) => ({ serials: values.serials, delimiter: '\n' }),
  });
  const restock = useMutation({
    mutationFn: (body: BodyOf<'POST /self/{shopId}/v2/products/{productId}/variants/{variantId}/serials'>) =>
      unwrap(
        api.POST('/self/{shopId}/v2/products/{productId}/variants/{variantId}/serials', {
          params: { path: { shopId: props.shopId, productId: props.productId, variantId: props.variantId } },
          body,
        }),
      ),
    onSuccess: async (answer) => {
      form.reset();
      notify(`${count(answer.added.length)} serial(s) added`);
      props.onAdded(answer);
      await queryClient.invalidateQueries({ queryKey: queryKeys.listings.all(props.shopId) });
    },
  });
  const answer = restock.data;
  const typed = form.watch('serials');
  return (
    // Not a <form>: it sits inside the product's form, and sends its own request.
    <section className="catalog-subgroup" aria-label="Restock">
      <Field
        label="Serial keys (one per line)"
        error={form.problem('serials')}
        hint="Added to the stock now; duplicates and keys sold before are skipped."
      >
        {(ids) => <textarea {...ids} {...form.register('serials')} className="input catalog-serials" rows={4} />}
      </Field>
      <FormProblems form={form} error={restock.error} />
      <div>
        <button
          type="button"
          className="btn"
          disabled={restock.isPending || typed.trim() === ''}
          onClick={form.submit(restock.mutateAsync)}
          aria-describedby={answer ? resultId : undefined}
        >
          {restock.isPending ? 'Adding…' : 'Add serials'}
        </button>
      </div>
      {answer ? (
        <div id={resultId} className="alert alert-info catalog-restock-result" role="status">
          <p>
            Added {count(answer.added.length)} · duplicates {count(answer.duplicates.length)} · already sold{' '}
            {count(answer.alreadySold.length)} · stock now {count(answer.stock)}
          </p>
          {answer.duplicates.length > 0 ? (
            <details>
              <summary>Duplicates ({count(answer.duplicates.length)})</summary>
              <ul>
                {[...new Set(answer.duplicates)].slice(0, 200).map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ul>
            </details>
          ) : null}
          {answer.alreadySold.length > 0 ? (
            <details>
              <summary>Already sold ({count(answer.alreadySold.length)})</summary>
              <ul>
                {[...new Set(answer.alreadySold)].slice(0, 200).map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
