import { uploadUrl } from '../../http/uploads.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { ListingWithTarget } from './repository.js';

/** A listing row joined with its product or group → the wire shape. */
export function toListing(l: ListingWithTarget, currency: string) {
  const product =
    l.type === 'product' && l.product_id !== null
      ? {
          id: l.product_id,
          title: l.product_title ?? '',
          path: l.product_path ?? '',
          thumbnailUrl: uploadUrl(l.product_thumbnail),
          unlisted: l.product_unlisted === 1,
          private: l.product_private === 1,
          onHold: l.product_on_hold === 1,
          isInternal: l.product_is_internal === 1,
          minPrice: { amount: fromMinorUnits(l.product_min_price ?? 0, currency), currency },
        }
      : null;
  const group =
    l.type === 'group' && l.group_id !== null
      ? {
          id: l.group_id,
          title: l.group_title ?? '',
          path: l.group_path ?? '',
          type: l.group_type ?? 'list',
          thumbnailUrl: uploadUrl(l.group_thumbnail),
        }
      : null;
  return { id: l.id, type: l.type, path: (product ?? group)?.path ?? '', position: l.position, product, group };
}
export type ListingView = ReturnType<typeof toListing>;
