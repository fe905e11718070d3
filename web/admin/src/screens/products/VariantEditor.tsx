import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import { useGateways } from '../../api/queries/settings';
import { type BodyForm, useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
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
  const name = strings.variantEditor.variantHeading(index + 1, v.title ? `: ${v.title}` : '');
  const gateways = useGateways(props.shopId);
  const setGateways = (next: GatewayDraft[]) => form.setValue(`${at}.gateways`, next, { shouldDirty: true });

  return (
    <fieldset className="catalog-variant" aria-label={strings.variantEditor.variant(index + 1)}>
      <legend>{name}</legend>
      {problem('id') ? <p className="field-error">{problem('id')}</p> : null}
      <div className="grid">
        <Field label={strings.variantEditor.variantTitle} error={problem('title')}>
          {(ids) => <input {...ids} {...register(`${at}.title`)} className="input" />}
        </Field>
        <Field label={strings.common.price} error={problem('price')} hint={strings.variantEditor.in(props.currency)}>
          {(ids) => <input {...ids} {...register(`${at}.price`)} className="input" inputMode="decimal" />}
        </Field>
        <Field label={strings.variantEditor.productType} error={problem('productType')}>
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
      <Field label={strings.variantEditor.variantDescription} error={problem('description')}>
        {(ids) => <textarea {...ids} {...register(`${at}.description`)} className="input" rows={2} />}
      </Field>

      <fieldset className="catalog-subgroup">
        <legend>{strings.variantEditor.deliveryAndStock}</legend>
        {v.id !== null ? (
          <p className="small muted" aria-live="polite">
            {strings.variantEditor.inStockNow}{' '}
            {v.stockNow === null ? strings.variantEditor.unlimited : count(v.stockNow)}
          </p>
        ) : null}
        {v.productType === 'serials' ? (
          <>
            {v.id === null ? (
              <Field
                label={strings.variantEditor.serialKeysOnePer}
                error={problem('serials')}
                hint={strings.variantEditor.oneKeyPerLine}
              >
                {(ids) => (
                  <textarea {...ids} {...register(`${at}.serials`)} className="input catalog-serials" rows={5} />
                )}
              </Field>
            ) : (
              <details>
                <summary>{strings.variantEditor.editTheKeysIn}</summary>
                <Field
                  label={strings.variantEditor.serialsInStockOne}
                  error={problem('serials')}
                  hint={strings.variantEditor.savedWithTheProduct}
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
              hint={strings.variantEditor.eachKeyIsThen}
            >
              {strings.variantEditor.removeDuplicateKeys}
            </CheckField>
          </>
        ) : (
          <>
            <Field
              label={strings.common.stock}
              error={problem('stock')}
              hint={strings.variantEditor.leaveEmptyForUnlimited}
            >
              {(ids) => <input {...ids} {...register(`${at}.stock`)} className="input" inputMode="numeric" />}
            </Field>
            {v.productType === 'service' ? (
              <Field
                label={strings.variantEditor.deliveredText}
                error={problem('text')}
                hint={strings.variantEditor.whatTheBuyerReceives}
              >
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
                    label={strings.variantEditor.downloadLimit}
                    error={problem('downloadLimit')}
                    hint={strings.variantEditor.downloadsOfEachFile}
                  >
                    {(ids) => (
                      <input {...ids} {...register(`${at}.downloadLimit`)} className="input" inputMode="numeric" />
                    )}
                  </Field>
                  <Field
                    label={strings.variantEditor.linkHours}
                    error={problem('linkHours')}
                    hint={strings.variantEditor.howLongADownload}
                  >
                    {(ids) => <input {...ids} {...register(`${at}.linkHours`)} className="input" inputMode="numeric" />}
                  </Field>
                </div>
              </>
            ) : (
              <Field
                label={strings.variantEditor.externalUrl}
                error={problem('externalUrl')}
                hint={strings.variantEditor.httpsAddressWePost}
              >
                {(ids) => <input {...ids} {...register(`${at}.externalUrl`)} type="url" className="input" />}
              </Field>
            )}
          </>
        )}
        <div className="grid">
          <Field
            label={strings.variantEditor.minimumQuantity}
            error={problem('minAmount')}
            hint={strings.variantEditor.emptyMeansOne}
          >
            {(ids) => <input {...ids} {...register(`${at}.minAmount`)} className="input" inputMode="numeric" />}
          </Field>
          <Field
            label={strings.variantEditor.maximumQuantity}
            error={problem('maxAmount')}
            hint={strings.variantEditor.emptyNoLimit}
          >
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
        <legend>{strings.common.paymentMethods}</legend>
        <p className="small muted">{strings.variantEditor.noneTickedEveryGateway}</p>
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
                {g.enabled ? null : <span className="muted small">{strings.common.notEnabledInSettings}</span>}
              </label>
              {position !== -1 ? (
                <div className="row">
                  <Field
                    label={strings.variantEditor.price(gatewayLabel(g.name))}
                    error={problem(`gateways.${position}.price`)}
                    hint={strings.variantEditor.emptyMeans(
                      v.price ? money(v.price, props.currency) : strings.variantEditor.theVariantPrice,
                    )}
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
                    {strings.variantEditor.blockVpnBuyersOn(gatewayLabel(g.name))}
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
        <legend>{strings.common.afterPurchase}</legend>
        <div className="grid-2">
          <Field label={strings.variantEditor.variantCustomerNote} error={problem('customerNote')}>
            {(ids) => <textarea {...ids} {...register(`${at}.customerNote`)} className="input" rows={2} />}
          </Field>
          <Field
            label={strings.variantEditor.redirectUrl}
            error={problem('redirectUrl')}
            hint={strings.variantEditor.whereTheBuyerGoes}
          >
            {(ids) => <input {...ids} {...register(`${at}.redirectUrl`)} type="url" className="input" />}
          </Field>
          <Field label={strings.variantEditor.warrantyText} error={problem('warrantyText')}>
            {(ids) => <input {...ids} {...register(`${at}.warrantyText`)} className="input" />}
          </Field>
          <Field
            label={strings.variantEditor.warrantyDays}
            error={problem('warrantyDays')}
            hint={strings.variantEditor.emptyWithNoText}
          >
            {(ids) => <input {...ids} {...register(`${at}.warrantyDays`)} className="input" inputMode="decimal" />}
          </Field>
        </div>
      </fieldset>

      {props.canRemove ? (
        <div>
          <button type="button" className="btn btn-danger" onClick={props.onRemove}>
            {strings.variantEditor.removeVariant(index + 1)}
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
      <legend>{strings.common.license}</legend>
      <CheckField {...register(`${at}.licenseEnabled`)} error={problem('licenseEnabled')}>
        {strings.variantEditor.issueALicensePer}
      </CheckField>
      <p className="small muted">
        {serials ? strings.variantEditor.eachSerialSoldBecomes : strings.variantEditor.aKeyIsGenerated}
      </p>
      {v.licenseEnabled ? (
        <>
          <div className="grid">
            <Field
              label={strings.variantEditor.activationLimit}
              error={problem('activationLimit')}
              hint={strings.variantEditor.instancesALicenseMay}
            >
              {(ids) => <input {...ids} {...register(`${at}.activationLimit`)} className="input" inputMode="numeric" />}
            </Field>
            {serials ? null : (
              <Field
                label={strings.variantEditor.keyPattern}
                error={problem('keyPattern')}
                hint={strings.variantEditor.eachXBecomesA(DEFAULT_KEY_PATTERN)}
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
            <legend>{strings.variantEditor.validity}</legend>
            <label className="check">
              <input type="radio" value="never" {...register(`${at}.licenseValidity`)} />
              {strings.variantEditor.neverExpires}
            </label>
            <label className="check">
              <input type="radio" value="days" {...register(`${at}.licenseValidity`)} />
              {strings.variantEditor.someDaysAfterThe}
            </label>
            <label className="check">
              <input type="radio" value="date" {...register(`${at}.licenseValidity`)} />
              {strings.variantEditor.untilAFixedDate}
            </label>
          </fieldset>
          {v.licenseValidity === 'days' ? (
            <Field
              label={strings.variantEditor.validForDays}
              error={problem('validDays')}
              hint={strings.variantEditor.countedFromTheSale}
            >
              {(ids) => <input {...ids} {...register(`${at}.validDays`)} className="input" inputMode="numeric" />}
            </Field>
          ) : null}
          {v.licenseValidity === 'date' ? (
            <Field
              label={strings.variantEditor.expiresOn}
              error={problem('licenseEndDate')}
              hint={strings.variantEditor.everyLicenseOfThis}
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
      <legend>{strings.common.customFields}</legend>
      <p className="small muted">{strings.variantEditor.questionsTheBuyerAnswers}</p>
      {fields.map((f, j) => {
        const problem = (name: string) => form.problem(`${at}.${j}.${name}`);
        return (
          <fieldset key={f.key} className="catalog-subgroup" aria-label={strings.variantEditor.customField(j + 1)}>
            <legend>{strings.variantEditor.customField(j + 1)}</legend>
            <div className="grid">
              <Field label={strings.variantEditor.fieldName} error={problem('name')}>
                {(ids) => <input {...ids} {...register(`${at}.${j}.name`)} className="input" />}
              </Field>
              <Field label={strings.variantEditor.fieldType} error={problem('type')}>
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
              <Field label={strings.variantEditor.placeholder} error={problem('placeholder')}>
                {(ids) => <input {...ids} {...register(`${at}.${j}.placeholder`)} className="input" />}
              </Field>
              <Field
                label={strings.variantEditor.patternRegularExpression}
                error={problem('regex')}
                hint={strings.variantEditor.optionalPattern}
              >
                {(ids) => <input {...ids} {...register(`${at}.${j}.regex`)} className="input" />}
              </Field>
              <Field
                label={strings.variantEditor.fieldId}
                error={problem('id')}
                hint={strings.variantEditor.emptyMadeFromThe}
              >
                {(ids) => <input {...ids} {...register(`${at}.${j}.id`)} className="input" />}
              </Field>
            </div>
            <div className="row">
              <CheckField {...register(`${at}.${j}.required`)} error={problem('required')}>
                {strings.variantEditor.required}
              </CheckField>
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => setFields(form.getValues(at).filter((y) => y.key !== f.key))}
              >
                {strings.variantEditor.removeCustomField(j + 1)}
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
          {strings.variantEditor.addCustomField}
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
      notify(strings.variantEditor.serialSAdded(count(answer.added.length)));
      props.onAdded(answer);
      await queryClient.invalidateQueries({ queryKey: queryKeys.listings.all(props.shopId) });
    },
  });
  const answer = restock.data;
  const typed = form.watch('serials');
  return (
    // Not a <form>: it sits inside the product's form, and sends its own request.
    <section className="catalog-subgroup" aria-label={strings.variantEditor.restock}>
      <Field
        label={strings.variantEditor.serialKeysOnePer}
        error={form.problem('serials')}
        hint={strings.variantEditor.addedToTheStock}
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
          {restock.isPending ? strings.variantEditor.adding : strings.variantEditor.addSerials}
        </button>
      </div>
      {answer ? (
        <div id={resultId} className="alert alert-info catalog-restock-result" role="status">
          <p>
            {strings.variantEditor.addedDuplicatesAlreadySold(
              count(answer.added.length),
              count(answer.duplicates.length),
              count(answer.alreadySold.length),
              count(answer.stock),
            )}
          </p>
          {answer.duplicates.length > 0 ? (
            <details>
              <summary>{strings.variantEditor.duplicates(count(answer.duplicates.length))}</summary>
              <ul>
                {[...new Set(answer.duplicates)].slice(0, 200).map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ul>
            </details>
          ) : null}
          {answer.alreadySold.length > 0 ? (
            <details>
              <summary>{strings.variantEditor.alreadySold(count(answer.alreadySold.length))}</summary>
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
