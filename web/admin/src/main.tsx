import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client';
import { isSessionKey } from './api/queries/keys';
import { App } from './app/App';
import './styles.css';

const queryClient: QueryClient = new QueryClient({
  // Any write may change what another screen shows (processing an order moves the dashboard, the
  // customer's page, the stock): after one, every query is marked stale, so each screen reads
  // afresh when it is next opened. The screen on view refetches only what its own write
  // invalidates: a blanket refetch would re-read (and reset) a form being edited.
  mutationCache: new MutationCache({
    onSuccess: (_data, _variables, _context, mutation) => {
      // Signing in or out starts the cache over instead (session.ts).
      if (mutation.meta?.session) return;
      void queryClient.invalidateQueries({
        predicate: (query) => !isSessionKey(query.queryKey),
        refetchType: 'none',
      });
    },
  }),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx will not change on a retry; a dropped connection may.
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: true,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
