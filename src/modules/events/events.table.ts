/** Events for the owner's systems (webhooks), written in the transaction of the change. */
export interface EventsTable {
  /** `evt_` + random. */
  id: string;
  shop_id: number;
  type: string;
  /** JSON of the event's `data`. */
  payload: string;
  created_at: number;
}
