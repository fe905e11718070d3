import { toIso } from '../../schemas/common.js';
import type { AnnouncementRow } from './announcements.table.js';

/** Row → wire shape of an announcement. */
export function toAnnouncement(a: AnnouncementRow) {
  return {
    id: a.id,
    path: a.path,
    title: a.title,
    shortDescription: a.short_description,
    description: a.description,
    unlisted: a.unlisted === 1,
    private: a.private === 1,
    buttonText: a.button_text,
    buttonLink: a.button_link,
    createdAt: toIso(a.created_at),
    updatedAt: toIso(a.updated_at),
  };
}
export type AnnouncementView = ReturnType<typeof toAnnouncement>;
