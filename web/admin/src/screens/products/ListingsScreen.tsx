import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import { type Listing, useAllListings } from '../../api/queries/listings';
import { useShop, useShopPath } from '../../app/shop';
import { strings } from '../../strings';
import { FormError } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { Badge, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { listingTitle, moved, visibilityWords } from './catalog';
import './catalog.css';

/** The API takes at most this many position changes a call. */
const POSITIONS_PER_CALL = 1000;

/**
 * The storefront order: every listing, moved one place at a time with its Up / Down buttons
 * and saved at once. A move sends the positions that changed (0, 1, 2 … down the list).
 */
export default function ListingsScreen() {
  const { shopId, currency } = useShop();
  const shopPath = useShopPath();
  const queryClient = useQueryClient();
  const notify = useToast();
  const listings = useAllListings(shopId);
  const [order, setOrder] = useState<Listing[] | null>(null);
  const [status, setStatus] = useState('');
  const focusAfterMove = useRef<string | null>(null);
  // Moves are saved one after the other, so a quick second move never lands before the first.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const latest = useRef<Listing[] | null>(null);

  useEffect(() => {
    if (listings.data) setOrder(listings.data);
  }, [listings.data]);
  useEffect(() => {
    if (!focusAfterMove.current) return;
    document.getElementById(focusAfterMove.current)?.focus();
    focusAfterMove.current = null;
  });

  const save = useMutation({
    mutationFn: (next: Listing[]) => {
      const run = queue.current.catch(() => undefined).then(() => sendOrder(next));
      queue.current = run;
      return run;
    },
    onSuccess: (saved, next) => {
      if (next !== latest.current) return;
      setOrder(saved);
      queryClient.setQueryData(queryKeys.listings.everyOne(shopId), saved);
    },
    onError: (_error, next) => {
      if (next !== latest.current) return;
      notify(strings.listings.theNewOrderWas, 'bad');
      void listings.refetch();
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.categories.all(shopId) }),
  });

  async function sendOrder(next: Listing[]) {
    const changes = next.flatMap((listing, position) =>
      listing.position === position ? [] : [{ listingId: listing.id, position }],
    );
    for (let i = 0; i < changes.length; i += POSITIONS_PER_CALL)
      await unwrap(
        api.PUT('/self/{shopId}/listings/position', {
          params: { path: { shopId } },
          body: { listings: changes.slice(i, i + POSITIONS_PER_CALL) },
        }),
      );
    return next.map((listing, position) => ({ ...listing, position }));
  }

  const move = (index: number, by: -1 | 1) => {
    if (!order) return;
    const listing = order[index]!;
    const next = moved(order, index, by);
    const newIndex = index + by;
    const direction = newIndex === 0 ? 'down' : newIndex === next.length - 1 ? 'up' : by === -1 ? 'up' : 'down';
    focusAfterMove.current = `listing-${listing.id}-${direction}`;
    latest.current = next;
    setOrder(next);
    setStatus(strings.listings.movedToPositionOf(listingTitle(listing), newIndex + 1, next.length));
    save.mutate(next);
  };

  return (
    <Page title={strings.common.storefrontOrder}>
      <p className="muted">{strings.listings.theOrderProductsAnd}</p>
      {listings.error ? <LoadError error={listings.error} retry={() => listings.refetch()} /> : null}
      {!order && !listings.error ? <Loading /> : null}
      <FormError error={save.error} />
      <p className="sr-only" role="status" aria-live="polite">
        {status}
      </p>
      {order && order.length === 0 ? (
        <p className="muted">
          {strings.listings.nothingToOrderYet}{' '}
          <Link href={shopPath('/products/new')}>{strings.listings.addAProduct}</Link>.
        </p>
      ) : null}
      {order ? (
        <>
          <p className="small muted" aria-live="polite">
            {strings.listings.listingS(count(order.length))}
            {save.isPending ? strings.listings.saving : ''}
          </p>
          <ol className="catalog-order" aria-label={strings.listings.storefrontListingsInOrder}>
            {order.map((listing, index) => {
              const title = listingTitle(listing);
              const flags = listing.product ? visibilityWords(listing.product) : [];
              return (
                <li key={listing.id}>
                  <span className="catalog-order-pos">{index + 1}.</span>
                  <span className="catalog-order-title">
                    {listing.product ? <Link href={shopPath(`/products/${listing.product.id}`)}>{title}</Link> : title}{' '}
                    <Badge tone={listing.type === 'group' ? 'info' : 'muted'}>
                      {listing.type === 'group' ? strings.listings.group : strings.common.product}
                    </Badge>{' '}
                    {flags.map((f) => (
                      <Badge key={f} tone="warn">
                        {f}
                      </Badge>
                    ))}{' '}
                    {listing.product ? (
                      <span className="muted small">
                        {strings.listings.from(money(listing.product.minPrice.amount, currency))}
                      </span>
                    ) : null}
                  </span>
                  <button
                    type="button"
                    id={`listing-${listing.id}-up`}
                    className="btn"
                    aria-label={strings.listings.moveUp(title)}
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                  >
                    {strings.listings.up}
                  </button>
                  <button
                    type="button"
                    id={`listing-${listing.id}-down`}
                    className="btn"
                    aria-label={strings.listings.moveDown(title)}
                    disabled={index === order.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    {strings.listings.down}
                  </button>
                </li>
              );
            })}
          </ol>
        </>
      ) : null}
    </Page>
  );
}
