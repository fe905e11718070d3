import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { Field, FormError } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { useToast } from '../../ui/Toast';
import {
  type CustomFieldType,
  customFieldTypeLabels,
  errorAt,
  type Gateway,
  type ProductType,
  productTypeLabels,
  type RestockAnswer,
  useGateways,
} from './catalog';
import { newKey, settingsKey, type VariantDraft } from './product-draft';

/** One variant of the product form: price, what it delivers, stock, gateways, custom fields, warranty. */
export function VariantEditor(props: {
  variant: VariantDraft;
  index: number;
  currency: string;
  shopId: number;
  productId: number | null;
  error: unknown;
  canRemove: boolean;
  onChange: (change: (v: VariantDraft) => Partial<VariantDraft>) => void;
  onRemove: () => void;
  onRestocked: () => void;
}) {
  const { variant: v, index } = props;
  const at = `variants[${index}]`;
  const settings = `${at}.${settingsKey[v.productType]}`;
  const e = (path: string) => errorAt(props.error, `${at}.${path}`);
  const set = <K extends keyof VariantDraft>(key: K, value: VariantDraft[K]) =>
    props.onChange(() => ({ [key]: value }));
  const name = `Variant ${index + 1}${v.title ? `: ${v.title}` : ''}`;
  const gateways = useGateways(props.shopId);

  return (
    <fieldset className="catalog-variant" aria-label={`Variant ${index + 1}`}>
      <legend>{name}</legend>
      {e('id') ? <p className="field-error">{e('id')}</p> : null}
      <div className="grid">
        <Field label="Variant title" error={e('title')}>
          {(ids) => <input {...ids} className="input" value={v.title} onChange={(x) => set('title', x.target.value)} />}
        </Field>
        <Field label="Price" error={e('priceDetails.amount') ?? e('priceDetails')} hint={`In ${props.currency}.`}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              inputMode="decimal"
              value={v.price}
              onChange={(x) => set('price', x.target.value)}
            />
          )}
        </Field>
        <Field label="Product type" error={e('productType')}>
          {(ids) => (
            <select
              {...ids}
              className="input"
              value={v.productType}
              onChange={(x) => set('productType', x.target.value as ProductType)}
            >
              {(Object.keys(productTypeLabels) as ProductType[]).map((type) => (
                <option key={type} value={type}>
                  {productTypeLabels[type]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Variant description" error={e('description')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            rows={2}
            value={v.description}
            onChange={(x) => set('description', x.target.value)}
          />
        )}
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
                error={errorAt(props.error, `${settings}.serials`)}
                hint="Each key is delivered once, ever. Stock is the number of keys."
              >
                {(ids) => (
                  <textarea
                    {...ids}
                    className="input catalog-serials"
                    rows={5}
                    value={v.serials}
                    onChange={(x) => set('serials', x.target.value)}
                  />
                )}
              </Field>
            ) : (
              <details>
                <summary>Edit the keys in stock</summary>
                <Field
                  label="Serials in stock (one per line)"
                  error={errorAt(props.error, `${settings}.serials`)}
                  hint="Saved with the product. Removing a line takes that key out of stock; a sold key never comes back."
                >
                  {(ids) => (
                    <textarea
                      {...ids}
                      className="input catalog-serials"
                      rows={6}
                      value={v.serials}
                      onChange={(x) => set('serials', x.target.value)}
                    />
                  )}
                </Field>
              </details>
            )}
            <label className="check">
              <input
                type="checkbox"
                checked={v.removeDuplicates}
                onChange={(x) => set('removeDuplicates', x.target.checked)}
              />
              Remove duplicate keys
            </label>
            {errorAt(props.error, `${settings}.removeDuplicates`) ? (
              <p className="field-error">{errorAt(props.error, `${settings}.removeDuplicates`)}</p>
            ) : null}
          </>
        ) : (
          <>
            <Field
              label="Stock"
              error={errorAt(props.error, `${settings}.stock`)}
              hint="Leave empty for unlimited stock."
            >
              {(ids) => (
                <input
                  {...ids}
                  className="input"
                  inputMode="numeric"
                  value={v.stock}
                  onChange={(x) => set('stock', x.target.value)}
                />
              )}
            </Field>
            {v.productType === 'service' ? (
              <Field
                label="Delivered text"
                error={errorAt(props.error, `${settings}.text`)}
                hint="What the buyer receives."
              >
                {(ids) => (
                  <textarea
                    {...ids}
                    className="input"
                    rows={3}
                    value={v.text}
                    onChange={(x) => set('text', x.target.value)}
                  />
                )}
              </Field>
            ) : (
              <Field
                label="External URL"
                error={errorAt(props.error, `${settings}.externalUrl`)}
                hint="https address we POST the order to at delivery; its answer is delivered."
              >
                {(ids) => (
                  <input
                    {...ids}
                    type="url"
                    className="input"
                    value={v.externalUrl}
                    onChange={(x) => set('externalUrl', x.target.value)}
                  />
                )}
              </Field>
            )}
          </>
        )}
        <div className="grid">
          <Field label="Minimum quantity" error={errorAt(props.error, `${settings}.minAmount`)} hint="Empty: 1.">
            {(ids) => (
              <input
                {...ids}
                className="input"
                inputMode="numeric"
                value={v.minAmount}
                onChange={(x) => set('minAmount', x.target.value)}
              />
            )}
          </Field>
          <Field label="Maximum quantity" error={errorAt(props.error, `${settings}.maxAmount`)} hint="Empty: no limit.">
            {(ids) => (
              <input
                {...ids}
                className="input"
                inputMode="numeric"
                value={v.maxAmount}
                onChange={(x) => set('maxAmount', x.target.value)}
              />
            )}
          </Field>
        </div>
        {v.productType === 'serials' && v.id !== null && props.productId !== null ? (
          <RestockSerials
            shopId={props.shopId}
            productId={props.productId}
            variantId={v.id}
            onAdded={(answer) => {
              props.onChange((current) => {
                const savedSerials = [current.savedSerials, ...answer.added].filter(Boolean).join('\n');
                return {
                  stockNow: answer.stock,
                  savedSerials,
                  // Unedited, the list follows the stock; edited, the owner's text stays.
                  serials: current.serials === current.savedSerials ? savedSerials : current.serials,
                };
              });
              props.onRestocked();
            }}
          />
        ) : null}
      </fieldset>

      <fieldset className="catalog-subgroup">
        <legend>Payment methods</legend>
        <p className="small muted">
          None ticked: every gateway enabled in your payment settings, at the variant price.
        </p>
        {gateways.error ? <p className="field-error">{gateways.error.message}</p> : null}
        {(gateways.data ?? []).map((g) => {
          const position = v.gateways.findIndex((x) => x.gateway === g.name);
          const chosen = position === -1 ? null : v.gateways[position]!;
          const update = (change: Partial<{ blockVpn: boolean; price: string }>) =>
            props.onChange((current) => ({
              gateways: current.gateways.map((x) => (x.gateway === g.name ? { ...x, ...change } : x)),
            }));
          return (
            <div key={g.name} className="stack">
              <label className="check">
                <input
                  type="checkbox"
                  checked={chosen !== null}
                  onChange={(x) =>
                    props.onChange((current) => ({
                      gateways: x.target.checked
                        ? [...current.gateways, { gateway: g.name as Gateway, blockVpn: false, price: '' }]
                        : current.gateways.filter((y) => y.gateway !== g.name),
                    }))
                  }
                />
                {g.name}
                {g.enabled ? null : <span className="muted small">(not enabled in settings)</span>}
              </label>
              {chosen ? (
                <div className="row">
                  <Field
                    label={`${g.name} price`}
                    error={e(`gateways[${position}]`)}
                    hint={`Empty: ${v.price ? money(v.price, props.currency) : 'the variant price'}.`}
                  >
                    {(ids) => (
                      <input
                        {...ids}
                        className="input"
                        inputMode="decimal"
                        value={chosen.price}
                        onChange={(x) => update({ price: x.target.value })}
                      />
                    )}
                  </Field>
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={chosen.blockVpn}
                      onChange={(x) => update({ blockVpn: x.target.checked })}
                    />
                    Block VPN buyers on {g.name}
                  </label>
                </div>
              ) : null}
            </div>
          );
        })}
        {e('gateways') ? <p className="field-error">{e('gateways')}</p> : null}
      </fieldset>

      <CustomFields variant={v} error={props.error} at={at} onChange={props.onChange} />

      <fieldset className="catalog-subgroup">
        <legend>After purchase</legend>
        <div className="grid-2">
          <Field label="Variant customer note" error={e('customerNote')}>
            {(ids) => (
              <textarea
                {...ids}
                className="input"
                rows={2}
                value={v.customerNote}
                onChange={(x) => set('customerNote', x.target.value)}
              />
            )}
          </Field>
          <Field label="Redirect URL" error={e('redirectUrl')} hint="Where the buyer goes after paying (https).">
            {(ids) => (
              <input
                {...ids}
                type="url"
                className="input"
                value={v.redirectUrl}
                onChange={(x) => set('redirectUrl', x.target.value)}
              />
            )}
          </Field>
          <Field label="Warranty text" error={e('warranty.text')}>
            {(ids) => (
              <input
                {...ids}
                className="input"
                value={v.warrantyText}
                onChange={(x) => set('warrantyText', x.target.value)}
              />
            )}
          </Field>
          <Field label="Warranty (days)" error={e('warranty.durationSeconds')} hint="Empty with no text: no warranty.">
            {(ids) => (
              <input
                {...ids}
                className="input"
                inputMode="decimal"
                value={v.warrantyDays}
                onChange={(x) => set('warrantyDays', x.target.value)}
              />
            )}
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

function CustomFields(props: {
  variant: VariantDraft;
  error: unknown;
  at: string;
  onChange: (change: (v: VariantDraft) => Partial<VariantDraft>) => void;
}) {
  const fields = props.variant.customFields;
  const update = (key: string, change: Partial<VariantDraft['customFields'][number]>) =>
    props.onChange((v) => ({ customFields: v.customFields.map((f) => (f.key === key ? { ...f, ...change } : f)) }));
  const listError = errorAt(props.error, `${props.at}.customFields`);
  return (
    <fieldset className="catalog-subgroup">
      <legend>Custom fields</legend>
      <p className="small muted">Questions the buyer answers at checkout.</p>
      {fields.map((f, j) => {
        const e = (name: string) => errorAt(props.error, `${props.at}.customFields[${j}].${name}`);
        return (
          <fieldset key={f.key} className="catalog-subgroup" aria-label={`Custom field ${j + 1}`}>
            <legend>Custom field {j + 1}</legend>
            <div className="grid">
              <Field label="Field name" error={e('name')}>
                {(ids) => (
                  <input
                    {...ids}
                    className="input"
                    value={f.name}
                    onChange={(x) => update(f.key, { name: x.target.value })}
                  />
                )}
              </Field>
              <Field label="Field type" error={e('type')}>
                {(ids) => (
                  <select
                    {...ids}
                    className="input"
                    value={f.type}
                    onChange={(x) => update(f.key, { type: x.target.value as CustomFieldType })}
                  >
                    {(Object.keys(customFieldTypeLabels) as CustomFieldType[]).map((type) => (
                      <option key={type} value={type}>
                        {customFieldTypeLabels[type]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="Placeholder" error={e('placeholder')}>
                {(ids) => (
                  <input
                    {...ids}
                    className="input"
                    value={f.placeholder}
                    onChange={(x) => update(f.key, { placeholder: x.target.value })}
                  />
                )}
              </Field>
              <Field label="Pattern (regular expression)" error={e('regex')} hint="Optional, e.g. ^[0-9]+$">
                {(ids) => (
                  <input
                    {...ids}
                    className="input"
                    value={f.regex}
                    onChange={(x) => update(f.key, { regex: x.target.value })}
                  />
                )}
              </Field>
              <Field label="Field id" error={e('id')} hint="Empty: made from the name.">
                {(ids) => (
                  <input
                    {...ids}
                    className="input"
                    value={f.id}
                    onChange={(x) => update(f.key, { id: x.target.value })}
                  />
                )}
              </Field>
            </div>
            <div className="row">
              <label className="check">
                <input
                  type="checkbox"
                  checked={f.required}
                  onChange={(x) => update(f.key, { required: x.target.checked })}
                />
                Required
              </label>
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => props.onChange((v) => ({ customFields: v.customFields.filter((y) => y.key !== f.key) }))}
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
            props.onChange((v) => ({
              customFields: [
                ...v.customFields,
                { key: newKey(), id: '', name: '', type: 'text', required: false, placeholder: '', regex: '' },
              ],
            }))
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
  const [keys, setKeys] = useState('');
  const notify = useToast();
  const queryClient = useQueryClient();
  const resultId = useId();
  const restock = useMutation({
    mutationFn: (serials: string) =>
      unwrap(
        api.POST('/self/{shopId}/v2/products/{productId}/variants/{variantId}/serials', {
          params: { path: { shopId: props.shopId, productId: props.productId, variantId: props.variantId } },
          body: { serials, delimiter: '\n' },
        }),
      ),
    onSuccess: async (answer) => {
      setKeys('');
      notify(`${count(answer.added.length)} serial(s) added`);
      props.onAdded(answer);
      await queryClient.invalidateQueries({ queryKey: ['shop', props.shopId, 'listings'] });
    },
  });
  const answer = restock.data;
  return (
    <section className="catalog-subgroup" aria-label="Restock">
      <Field
        label="Serial keys (one per line)"
        error={errorAt(restock.error, 'serials')}
        hint="Added to the stock now; duplicates and keys sold before are skipped."
      >
        {(ids) => (
          <textarea
            {...ids}
            className="input catalog-serials"
            rows={4}
            value={keys}
            onChange={(x) => setKeys(x.target.value)}
          />
        )}
      </Field>
      <FormError error={restock.error} fields={['serials']} />
      <div>
        <button
          type="button"
          className="btn"
          disabled={restock.isPending || keys.trim() === ''}
          onClick={() => restock.mutate(keys)}
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
