import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ApiError, api, setCsrfToken, unwrap, whenCsrfRefused, whenSignedOut } from '../api/client';
import { isSessionKey, queryKeys } from '../api/queries/keys';

export interface Session {
  accountId: number;
  email: string;
  csrfToken: string | null;
  expiresAt: string | null;
}

/** The signed-in owner, or null when signed out (the session query answers 401). */
export function useSession() {
  const queryClient = useQueryClient();
  useEffect(() => {
    whenSignedOut(() => {
      setCsrfToken(null);
      resetForSession(queryClient, null);
    });
    whenCsrfRefused(() => void queryClient.invalidateQueries({ queryKey: queryKeys.session }));
  }, [queryClient]);
  return useQuery({
    queryKey: queryKeys.session,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async (): Promise<Session | null> => {
      try {
        const session = (await unwrap(api.GET('/self/session'))) as Session;
        setCsrfToken(session.csrfToken);
        return session;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
  });
}

/**
 * Starts the cache over for another account (or none): every query but the session's is
 * dropped, and the session set to `session`. (Clearing the whole cache would orphan the session
 * query the app is watching, and the new value would not show until a reload.)
 */
export function resetForSession(queryClient: QueryClient, session: Session | null): void {
  queryClient.removeQueries({ predicate: (query) => !isSessionKey(query.queryKey) });
  queryClient.setQueryData(queryKeys.session, session);
}
