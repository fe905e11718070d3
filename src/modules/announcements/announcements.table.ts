import type { Generated, Selectable } from 'kysely';

export interface AnnouncementsTable {
  id: Generated<number>;
  shop_id: number;
  /** Slug generated from the title, unique per shop. */
  path: string;
  title: string;
  short_description: string | null;
  description: string;
  unlisted: Generated<number>;
  private: Generated<number>;
  button_text: string | null;
  button_link: string | null;
  created_at: number;
  updated_at: number;
}

export type AnnouncementRow = Selectable<AnnouncementsTable>;
