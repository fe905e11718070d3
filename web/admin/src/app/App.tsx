import { Suspense } from 'react';
import { Redirect, Route, Router, Switch } from 'wouter';
import { useShops } from '../api/queries/shops';
import { LoadError, Loading } from '../ui/Page';
import { ToastProvider } from '../ui/Toast';
import { Layout } from './Layout';
import { screens } from './routes';
import { CreateFirstShop, NotFound } from './Shops';
import { SetPassword, SignIn } from './SignIn';
import { useSession } from './session';

export function App() {
  return (
    <ToastProvider>
      <Router base="/admin">
        <Switch>
          <Route path="/setup" component={SetPassword} />
          <Route>
            <SignedIn />
          </Route>
        </Switch>
      </Router>
    </ToastProvider>
  );
}

function SignedIn() {
  const session = useSession();
  if (session.isLoading) return <Loading />;
  if (session.error) return <LoadError error={session.error} retry={() => session.refetch()} />;
  if (!session.data) return <SignIn />;
  return (
    <Switch>
      <Route path="/">
        <FirstShop />
      </Route>
      <Route path="/:shopId/*?">
        <Layout>
          <Suspense fallback={<Loading />}>
            <Switch>
              {screens.map((s) => (
                <Route key={s.path} path={s.path} component={s.component} />
              ))}
              <Route component={NotFound} />
            </Switch>
          </Suspense>
        </Layout>
      </Route>
    </Switch>
  );
}

/** `/admin/` opens the first shop, or asks for one when the account has none yet. */
function FirstShop() {
  const shops = useShops();
  if (shops.isLoading) return <Loading />;
  if (shops.error) return <LoadError error={shops.error} retry={() => shops.refetch()} />;
  const first = shops.data?.[0];
  return first ? <Redirect to={`/${first.id}`} replace /> : <CreateFirstShop />;
}
