import { type UseMutationResult, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { FormError } from '../../ui/Field';
import { useToast } from '../../ui/Toast';

export type Settings = paths['/self/{shopId}/settings']['get']['responses'][200]['content']['application/json']['data'];

/** Every setting of the shop (shop fields, masked payments, design) in one read. */
export function useSettings() {
  const shopId = useShopId();
  return useQuery({
    queryKey: ['shop', shopId, 'settings'],
    queryFn: () => unwrap(api.GET('/self/{shopId}/settings', { params: { path: { shopId } } })),
  });
}

/**
 * A save of one settings section: on success a toast, and the settings (and the shop list, whose
 * name, subdomain and currency the frame shows) are read again.
 */
export function useSettingSave<TInput, TResult>(
  save: (input: TInput) => Promise<TResult>,
  message = 'Saved',
  onSaved?: () => void,
) {
  const shopId = useShopId();
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: save,
    onSuccess: async () => {
      notify(message);
      onSaved?.();
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'settings'] }),
        queryClient.invalidateQueries({ queryKey: ['shops'] }),
      ]);
    },
  });
}

/**
 * One section of a settings page saved on its own: a form named by its title (so it can be found
 * by role), the API's problems no field shows above it, and its own Save button.
 */
export function SettingsSection<TInput, TResult>(props: {
  title: string;
  description?: ReactNode;
  mutation: UseMutationResult<TResult, Error, TInput>;
  /** The body field names the form shows beside their inputs. */
  fields: readonly string[];
  onSubmit: () => void;
  children: ReactNode;
  /** More buttons beside Save (e.g. "Remove password"). */
  extra?: ReactNode;
  submitLabel?: string;
  submitDisabled?: boolean;
}) {
  const titleId = `settings-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  return (
    // Named "<title> settings", not by its heading: a section's title is often its field's label
    // too, and one name for two elements would make the field ambiguous to find by its label.
    <form className="card stack settings-section" aria-label={`${props.title} settings`} onSubmit={submit} noValidate>
      <h2 id={titleId} className="settings-section-title">
        {props.title}
      </h2>
      {props.description ? <p className="muted small settings-section-description">{props.description}</p> : null}
      <FormError error={props.mutation.error} fields={props.fields} />
      {props.children}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={props.mutation.isPending || props.submitDisabled}>
          {props.mutation.isPending ? 'Saving…' : (props.submitLabel ?? 'Save')}
        </button>
        {props.extra}
      </div>
    </form>
  );
}

/** Text the owner left empty is sent as null (which clears the setting). */
export function orNull(text: string): string | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : text;
}
