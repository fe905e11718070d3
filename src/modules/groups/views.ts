import { uploadUrl } from '../../http/uploads.js';
import { toIso } from '../../schemas/common.js';
import type { GroupRow } from './groups.table.js';

/** Row → wire shapes of groups. */
export function toGroup(g: GroupRow, productIds: number[]) {
  return {
    id: g.id,
    title: g.title,
    description: g.description,
    path: g.path,
    productIds,
    priority: g.priority,
    type: g.type,
    main: g.main === 1,
    thumbnailUrl: uploadUrl(g.thumbnail),
    createdAt: toIso(g.created_at),
    updatedAt: toIso(g.updated_at),
  };
}
export type GroupView = ReturnType<typeof toGroup>;
