import { useParams } from 'wouter';
import { useShops } from '../api/queries/shops';

/** The `{shopId}` of the current screen (every screen lives under `/admin/{shopId}/`). */
export function useShopId(): number {
  const { shopId } = useParams<{ shopId: string }>();
  return Number(shopId);
}

/** The current shop (its name, currency, subdomain …), from the shop list. */
export function useShop() {
  const shopId = useShopId();
  const shops = useShops();
  const shop = shops.data?.find((s) => s.id === shopId);
  return { shopId, shop, currency: shop?.currency ?? 'USD', isLoading: shops.isLoading };
}

/** A path inside the current shop: `shopPath('/orders')` is `/{shopId}/orders`. */
export function useShopPath(): (path: string) => string {
  const shopId = useShopId();
  return (path) => `/${shopId}${path}`;
}
