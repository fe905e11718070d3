import type { customFieldTypes } from '../../../src/modules/products/index.js';
import { Field } from '../components.js';
import { describedBy } from '../form.js';
import { useLang } from '../i18n.js';

/** A variant's custom field as the public views show it. */
export interface CustomFieldView {
  id: string;
  name: string;
  type: (typeof customFieldTypes)[number];
  required: boolean;
  placeholder: string | null;
}

/** The id of a custom field's input on a page (field ids are `[A-Za-z0-9_-]`). */
export const customFieldInputId = (fieldId: string) => `field-${fieldId}`;

/**
 * One custom field as a labelled input of its type, required ones marked. Its pattern (RE2) is
 * checked by the server only: browsers' patterns are another dialect.
 */
export function CustomFieldInput(props: {
  field: CustomFieldView;
  name: string;
  value: string;
  error?: string | undefined;
  maxLength: number;
}) {
  const { field, value, error } = props;
  const { t } = useLang();
  const id = customFieldInputId(field.id);
  const label = field.required ? t('field.required', { name: field.name }) : field.name;
  const aria = describedBy(id, { error });
  if (field.type === 'checkbox') {
    return (
      <div class={error ? 'field checkbox invalid' : 'field checkbox'}>
        <input
          id={id}
          name={props.name}
          type="checkbox"
          value="true"
          checked={value === 'true'}
          required={field.required}
          {...aria}
        />
        <label for={id}>{label}</label>
        {error ? (
          <p class="error" id={`${id}-error`} role="alert">
            {error}
          </p>
        ) : null}
      </div>
    );
  }
  const common = {
    id,
    name: props.name,
    required: field.required,
    placeholder: field.placeholder ?? undefined,
    maxLength: props.maxLength,
    ...aria,
  };
  return (
    <Field id={id} label={label} error={error}>
      {field.type === 'textarea' ? (
        <textarea {...common} rows={4} value={value} />
      ) : field.type === 'number' ? (
        <input {...common} type="number" step="any" inputMode="decimal" value={value} />
      ) : field.type === 'email' ? (
        <input {...common} type="email" value={value} />
      ) : (
        <input {...common} type="text" value={value} />
      )}
    </Field>
  );
}
