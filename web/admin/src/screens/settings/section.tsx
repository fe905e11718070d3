import { type UseMutationResult, useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { FieldValues } from 'react-hook-form';
import { queryKeys } from '../../api/queries/keys';
import { useShopId } from '../../app/shop';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { FormProblems } from '../../ui/Field';
import { useToast } from '../../ui/Toast';

/**
 * A save of one settings section: on success a toast, and the settings (and the shop list, whose
 * name, subdomain and currency the frame shows) are read again.
 */
export function useSettingSave<TInput, TResult>(
  save: (input: TInput) => Promise<TResult>,
  message: string = strings.settings.saved,
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
        queryClient.invalidateQueries({ queryKey: queryKeys.settings(shopId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.shops }),
      ]);
    },
  });
}

/**
 * One section of a settings page saved on its own: a form named by its title (so it can be found
 * by role), checked against the API's schema of its body, the problems no field shows above it,
 * and its own Save button.
 */
export function SettingsSection<Values extends FieldValues, Body, TResult>(props: {
  title: string;
  description?: ReactNode;
  form: BodyForm<Values, Body>;
  mutation: UseMutationResult<TResult, Error, Body>;
  /** What Save does with the checked body; by default, the mutation. */
  send?: (body: Body) => Promise<unknown>;
  children: ReactNode;
  /** More buttons beside Save (e.g. "Remove password"). */
  extra?: ReactNode;
  submitLabel?: string;
  submitDisabled?: boolean;
}) {
  const titleId = `settings-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    // Named "<title> settings", not by its heading: a section's title is often its field's label
    // too, and one name for two elements would make the field ambiguous to find by its label.
    <form
      className="card stack settings-section"
      aria-label={strings.settings.settings(props.title)}
      onSubmit={props.form.submit(props.send ?? props.mutation.mutateAsync)}
      noValidate
    >
      <h2 id={titleId} className="settings-section-title">
        {props.title}
      </h2>
      {props.description ? <p className="muted small settings-section-description">{props.description}</p> : null}
      <FormProblems form={props.form} error={props.mutation.error} />
      {props.children}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={props.mutation.isPending || props.submitDisabled}>
          {props.mutation.isPending ? strings.common.saving : (props.submitLabel ?? strings.common.save)}
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
