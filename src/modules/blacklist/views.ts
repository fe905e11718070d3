import { toIso } from '../../schemas/common.js';
import type { BlockedItemRow } from './blacklist.table.js';

/** Row → wire shape of a blocked item. */
export function toBlockedItem(b: BlockedItemRow) {
  return {
    id: b.id,
    type: b.type,
    data: b.data,
    note: b.note,
    createdAt: toIso(b.created_at),
    updatedAt: toIso(b.updated_at),
  };
}
export type BlockedItemView = ReturnType<typeof toBlockedItem>;
