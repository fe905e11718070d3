import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError, api, setCsrfToken, unwrap } from '../api/client';
import { queryKeys } from '../api/queries/keys';
import { useShops } from '../api/queries/shops';
import { strings } from '../strings';
import { Dialog } from '../ui/Dialog';
import { LoadError } from '../ui/Page';
import { useToast } from '../ui/Toast';
import { navigation } from './routes';
import { NewShopForm } from './Shops';
import { resetForSession, useSession } from './session';
import { ShopDatesProvider } from './shop-dates';

/** The frame of every shop screen: the shop switcher, the navigation and the account. */
export function Layout(props: { children: ReactNode }) {
  const { shopId } = useParams<{ shopId: string }>();
  const [location, navigate] = useLocation();
  const shops = useShops();
  const session = useSession();
  const queryClient = useQueryClient();
  const notify = useToast();
  const [menuOpen, setMenuOpen] = useState(false);
  const [newShop, setNewShop] = useState(false);
  // A screen change closes the phone menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation
  useEffect(() => setMenuOpen(false), [location]);

  const signOut = useMutation({
    mutationFn: () => unwrap(api.DELETE('/self/session')),
    meta: { session: true },
    onSuccess: () => {
      setCsrfToken(null);
      // The sign-in form shows in place; signing in again comes back to this screen.
      resetForSession(queryClient, null);
    },
    // Not signed out (this tab's CSRF token is stale after a sign-in in another tab, say): the
    // session is asked for again, with a fresh token, and the owner can retry. A 401 (already
    // signed out) shows the sign-in form through the client's 401 handling.
    onError: (error) => {
      if (!(error instanceof ApiError && error.status === 401)) {
        notify(strings.nav.couldNotSignOut, 'bad');
        void queryClient.invalidateQueries({ queryKey: queryKeys.session });
      }
    },
  });

  if (shops.error) return <LoadError error={shops.error} retry={() => shops.refetch()} />;
  const shop = shops.data?.find((s) => String(s.id) === shopId);
  if (shops.data && !shop)
    return (
      <main className="auth">
        <div className="auth-card">
          <h1>{strings.nav.noSuchShop}</h1>
          <p>{strings.nav.thisAccountHasNo(shopId)}</p>
          <Link href="/" className="btn btn-primary">
            {strings.nav.openMyShops}
          </Link>
        </div>
      </main>
    );
  const base = `/${shopId}`;
  const current = location.replace(/\/$/, '');
  // The deepest navigation entry the location is in, so `/orders/abc` lights up "Orders".
  const active = navigation
    .flatMap((s) => s.items)
    .map((i) => base + i.path)
    .filter((path) => current === path || current.startsWith(`${path}/`))
    .sort((a, b) => b.length - a.length)[0];

  return (
    <div className={`shell ${menuOpen ? 'menu-open' : ''}`}>
      <a href="#main" className="skip-link">
        {strings.nav.skipToContent}
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn-ghost menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          ☰ <span className="sr-only">{strings.nav.menu}</span>
        </button>
        <strong className="brand">{strings.nav.shopd}</strong>
        <span className="topbar-shop">{shop?.name}</span>
      </header>
      <aside id="sidebar" className="sidebar">
        <div className="brand sidebar-brand">{strings.nav.shopd}</div>
        <label className="shop-switcher">
          <span className="sr-only">{strings.nav.shop}</span>
          <select
            className="input"
            value={shopId}
            onChange={(e) => {
              if (e.target.value === 'new') setNewShop(true);
              else navigate(`/${e.target.value}`);
            }}
          >
            {(shops.data ?? []).map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.name}
              </option>
            ))}
            <option value="new">{strings.nav.newShopOption}</option>
          </select>
        </label>
        {shop ? (
          <a className="storefront-link" href={shop.storefrontUrl} target="_blank" rel="noreferrer">
            {strings.nav.viewStorefront}
          </a>
        ) : null}
        <nav aria-label={strings.nav.admin}>
          {navigation.map((section) => (
            <div key={section.section} className="nav-section">
              {section.section ? <h2>{section.section}</h2> : null}
              <ul>
                {section.items.map((item) => {
                  const href = base + item.path;
                  return (
                    <li key={item.path}>
                      <Link
                        href={href}
                        aria-current={active === href ? 'page' : undefined}
                        onClick={() => setMenuOpen(false)}
                      >
                        {item.label}
                      </Link>
                    </li>
                  );
                })}
              </ul>
            </div>
          ))}
        </nav>
        <div className="account">
          <span className="muted small" title={session.data?.email}>
            {session.data?.email}
          </span>
          <button type="button" className="btn btn-ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            {strings.nav.signOut}
          </button>
        </div>
      </aside>
      <main id="main" className="content" tabIndex={-1}>
        {/* Every date of the shop's screens is written on the shop's clock (app/shop-dates.tsx). */}
        <ShopDatesProvider clock={shop}>{props.children}</ShopDatesProvider>
      </main>
      <Dialog open={newShop} onClose={() => setNewShop(false)} title={strings.nav.newShop}>
        <NewShopForm onDone={() => setNewShop(false)} />
      </Dialog>
    </div>
  );
}
