/** A checkout, ticket or sign-in code a client asked a shop for (migration 0033): its velocity. */
export interface ChallengeActionsTable {
  shop_id: number;
  /** The client's IPv4 address or IPv6 /64 (src/http/client-net.ts). */
  client_net: string;
  created_at: number;
}

/** A solved challenge that was spent (migration 0033), kept until it would have expired. */
export interface ChallengeSolutionsTable {
  shop_id: number;
  /** The challenge's random nonce (hex), which its signature covers. */
  nonce: string;
  expires_at: number;
}
