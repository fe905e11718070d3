import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useToast } from './Toast';

/**
 * The delete of a list screen's row: `remove(id)` on the API, then `done` as a toast and the
 * list's queries (`key`) read again; a refusal shows its message as a toast.
 */
export function useRemove<Id>(key: readonly unknown[], done: string, remove: (id: Id) => Promise<unknown>) {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: remove,
    onSuccess: () => {
      notify(done);
      return queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (err) => notify(err.message, 'bad'),
  });
}
