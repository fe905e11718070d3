/**
 * The OpenAPI document's tags: one per resource, each with the explanation of that resource, in
 * the order Swagger UI shows them. The groups say which tags belong together (`x-tagGroups`,
 * which Redoc and Scalar show as sections); the tag list is the groups in order. Rules of one
 * operation or field live beside it, in its route or schema; what every call shares lives in the
 * document's introduction (openapi.ts).
 */
export interface TagGroup {
  name: string;
  tags: { name: string; description: string }[];
}

export const tagGroups: TagGroup[] = [
  {
    name: 'Shop setup',
    tags: [
      {
        name: 'Account',
        description: `
The owner's account: signing in to the web admin, its password and its API keys.

- **Sign-in.** \`POST /self/session\` with e-mail and password sets the \`shopd_session\` cookie
  (HttpOnly, SameSite=Strict, Path=/, Secure over https) and answers a CSRF token. Writes made with
  the cookie send that token as \`X-CSRF-Token\` (else 403 \`forbidden\`, nothing changes);
  \`GET /self/session\` answers a fresh one, e.g. after a reload. A session lasts 12 hours from
  its last use and at most 7 days; \`DELETE /self/session\` signs out. Failed sign-ins are limited
  per e-mail address and per client (429 with \`Retry-After\`).
- **Password.** 10 to 200 characters, stored only as a scrypt hash. A first password is set through
  a one-time link (valid 24 hours): the server prints one for the first owner on its first start,
  and \`shopd users setup-link --email <e>\` makes a new one (\`shopd users set-password\` sets it
  from the command line). Setting a password ends the account's sessions; changing it with
  \`PUT /self/password\` ends the other ones.
- **API keys.** \`/self/keys\` lists, creates and revokes the account's keys, the same keys as
  \`shopd keys\` makes; a key is shown once, when created, and \`lastUsedAt\` tells when it last
  worked (to within a minute).`,
      },
      {
        name: 'Shops and settings',
        description: `
A shop belongs to the account whose key created it: \`GET /self/shops\` lists the account's shops,
newest first, and any \`/self/{shopId}/…\` call on another account's shop is a 404. \`GET settings\`
reads the shop with its payment providers (secrets masked) and its design; each
\`PUT settings/<setting>\` changes one setting.

- **On hold.** A shop put on hold (\`settings/status\`) refuses checkout (422).
- **Currency.** Changing it keeps the number of every amount kept in the shop currency — prices
  (9.99 USD → 9.99 EUR), fixed coupon discounts, customer balances and totals — rounded half up
  when the new currency has fewer decimals (9.99 USD → 10 JPY). Invoices keep the currency they
  were made in.
- **Storefront password.** With one set, every public page and ticket of the shop needs it as
  \`key\` (see *Storefront*).
- **Timezone.** The UTC offset decides the shop's local days and hours: bare dates in filters
  and the dashboards' days and hours are read in it.
- **Invoice lifetime.** How long a pending invoice holds its stock and coupon use before it
  expires (default 60 minutes).
- **Affiliate percentage.** What a referrer earns on the orders their referral code brought
  (see *Affiliates*); 0 turns it off.
- **Addresses.** A shop's storefront is at \`{PUBLIC_URL}/s/{subdomain}/\`, at
  \`{subdomain}.{STOREFRONT_DOMAIN}\` when the server has a storefront domain, and at the owner's own
  host once \`settings/domain\` sets one (unique across the server: 409; \`null\` clears it). The
  shop's \`storefrontUrl\` is the address every link shopd writes uses (mail, webhooks, invoice
  \`url\`): the custom domain when set, else the subdomain host, else the \`/s/\` path. Changing the
  subdomain or the domain drops the shop's cached storefront pages.`,
      },
      {
        name: 'Payment settings',
        description: `
One call per payment provider: \`cryptocommerce\` (\`apiKey\`, \`webhookSecret\`), \`virtual-payments\`
(\`privateKey\`, \`publicKey\`, \`receiveCurrency\`), \`tipjar\` (\`handle\`), \`balance\` (none: the
customer's balance in the shop), \`cardconnect\` (\`secretKey\`, \`webhookSecret\`), \`walletemail\`
(\`email\`), \`mobilecash\` (\`cashtag\`, optional \`email\`), \`wallet-ff\` (\`email\`), \`cardreader\`
(\`terminalId\`, \`apiKey\`). shopd calls no provider: a checkout answers the payment instructions
(handle, e-mail or cashtag, with the invoice id as reference) and the owner confirms the payment
with \`process\` (see *Invoices*).

- **Partial updates.** An omitted field keeps its value, \`null\` clears it. A provider can be
  enabled only once its required fields are stored (422 naming the missing ones).
- **Secrets** are encrypted at rest and only ever read back masked (\`••••1234\`). The view read
  from \`GET settings\` sent back unchanged changes nothing: a masked value equal to the current
  one keeps the stored secret; any other value starting with \`•\` is a 400 naming the field.
- **Unreadable secrets.** When the server's key cannot open a provider's stored secrets (the
  operator changed \`SECRET_KEY\`; see the README), its view has \`secretsUnreadable: true\` and the
  secret fields read \`••••unreadable\`. A PUT that leaves them out keeps them sealed as they are;
  one that gives every secret field replaces them; one that gives only some, or enables the
  provider without them, is a 409 naming the rest.
- **VPN rule.** \`gatewayRules.blockVpn\` (and a product variant's \`gateways[].rules.blockVpn\`)
  refuses checkouts through that gateway from buyers whose IP is in the server's VPN ranges
  (\`VPN_RANGES_FILE\`): a 422 naming the gateway, or \`parts[i].productVariantId\` for a variant's
  rule. Turning either on is a 422 when the server has no VPN ranges; a rule already stored on
  may be saved again unchanged (it is not enforced until the server has ranges).`,
      },
      {
        name: 'Storefront design',
        description: `
\`settings/design/*\` and \`customization/*\` are two path families over one stored design: a write
through either shows in both, in \`GET customization\` and in \`GET settings\` (\`design\`). Every PUT
is a partial update — an omitted field keeps its value, \`null\` or an empty text clears it (or sets
it back to its default) — and answers the whole design; concurrent updates of different fields
never lose each other.

**Images** are uploads (\`multipart/form-data\`, see each upload call): the logo, the storefront
image, the SEO image and the favicon. Their URLs are read-only in the PUT bodies: the design keeps
the upload's name and the URL is derived from it, so a design can only show files its own uploads
stored. Replacing an image, through either family, removes the old file once the change has
committed.`,
      },
    ],
  },
  {
    name: 'Catalog',
    tags: [
      {
        name: 'Products',
        description: `
A product has 1–50 variants, each of one delivery type:

- \`serials\` (\`asSerials\`): serials given as an array or one text split on \`delimiter\` (default a
  newline). Stock is the number of undelivered serials, kept as a count on the variant and changed
  in the transaction of every write that adds, deletes, reserves or returns serials. Each serial is
  delivered at most once, ever. Serial contents are shown to the owner on a single product only,
  never in a list.
- \`service\` (\`asService\`): delivers its \`text\`; \`stock: null\` is unlimited.
- \`dynamic\` (\`asDynamic\`): at delivery the order is POSTed to the owner's https \`externalUrl\` and
  its answer delivered (see *Invoices*).

Every variant has a price in the shop currency, \`gateways\` (empty: every enabled gateway; each may
carry a \`price\` override and \`rules.blockVpn\`), \`customFields\` the buyer fills in at checkout
(\`text\`, \`number\`, \`email\`, \`checkbox\`, \`textarea\`), a \`customerNote\`, a \`redirectUrl\` and a
\`warranty\`.

- **Custom field patterns** (\`regex\`) are RE2 regular expressions, matched in time linear in the
  answer, so no pattern can stall the server; an answer must contain a match (anchor it with
  \`^…$\`). A pattern RE2 cannot compile (lookarounds, backreferences), one over 500 characters or
  one that compiles to more than 1,000 RE2 instructions is a 400 naming the field when the product
  is saved (create, update, bulk custom fields). Answers are at most 2,000 characters. A pattern
  stored by an earlier version that RE2 cannot compile makes checkouts of the variant a 422 naming
  the field until the owner saves a valid one.
- **Chat integration.** When enabled, checkout keeps the buyer's \`chatUserId\` on the invoice (in
  the owner's invoice view and so in \`invoice.*\` webhooks) for the owner's bot to grant the roles;
  when also \`required\`, a checkout without it is a 400 naming it and the part. The public invoice
  never shows it.
- **Restocking serials.** \`POST …/variants/{variantId}/serials\` appends keys to a serials
  variant without the rest of the product (at most 10,000 a call) and answers what was \`added\`,
  what the variant already held or the request repeated (\`duplicates\`) and what it delivered
  before (\`alreadySold\`), with the new \`stock\`. Another type of variant is a 409.
- **Round trip.** \`POST\` ignores variant ids, so a product read with \`GET\` can be posted as a copy;
  a \`PUT\` of the view sent back keeps the serial stock as it is (a serial in stock stays, a value
  already sold is never put back).
- **Deleting** a product removes it from the catalog, its group and the listings; orders keep their
  copy of it.
- **Bulk calls** take 1–500 \`productIds\` and are all or nothing: an id that is not a product of the
  shop is a 404 that changes nothing. They answer \`{ updated }\`.`,
      },
      {
        name: 'Groups',
        description: `
A group shows several products as one storefront listing, in the order of its \`productIds\`.
Listings follow the groups: a group has one listing, and a product in any group loses its own
(deleting the group gives its products their own listings back). The storefront shows a
group with its listed products only, and leaves it out when none remains.`,
      },
      {
        name: 'Listings',
        description: `
Listings are what the storefront main and products pages show, in order: one per live product that
is in no group and one per group, created and removed with them. The owner orders them
(\`listings/position\`) and files them into categories.`,
      },
      {
        name: 'Categories',
        description: `
Categories sort the storefront's listings: a category names listings (\`listingIds\`). The storefront
lists, for each category, only the listings it shows; deleting a category leaves its listings.`,
      },
      {
        name: 'Uploads',
        description: `
Images uploaded for the design, products and groups: PNG, JPEG, WebP or GIF (favicons also ICO),
recognised by their bytes and re-encoded to strip their metadata (EXIF, GPS), at most
\`UPLOAD_LIMIT_BYTES\` (413); anything else is a 415. They are stored under \`DATA_DIR/uploads\` and
served here with a year-long immutable cache; replacing or deleting an image removes the old file.`,
      },
    ],
  },
  {
    name: 'Buyers',
    tags: [
      {
        name: 'Storefront',
        description: `
Six read-only pages under \`/v2/public/shops/{shopId}\` give a storefront everything it renders. No
API key; rate limited per client IP. \`{shopId}\` is the shop's numeric id or its subdomain
(\`/v2/public/shops/demo-shop/main\`), here and in every other \`/v2/public/shops/{shopId}/…\` path;
an unknown shop is a 404.

- **Storefront password.** When the shop has one, every page takes it as \`key\`; missing or wrong:
  403 \`shop_locked\`. A correct key is remembered in-process, keyed by the stored hash, so later
  pages skip the ~50 ms scrypt check, and a new password retires it at once.
- **Visibility.** Listings leave out private, internal and unlisted products; a group shows only
  its listed products and is left out when none remains; on-hold products are shown with
  \`onHold: true\`. A path reaches unlisted products (and grouped ones) too, never private or
  internal ones (404, as an unknown path). Private announcements are a 404; unlisted ones are
  reachable by path only. Categories list only the listings shown.
- **Variants** show price, \`stock\` (null: unlimited), \`inStock\`, quantity limits, custom fields,
  warranty and the gateways they can be paid with now (enabled in the shop and allowed by the
  variant; an empty list means every enabled one), each with its price. The design's
  \`hideProductStock\` removes every stock figure (\`stock\` is omitted; \`inStock\` stays); the other
  design flags are passed on in \`mainDetails.design\` for the storefront to honour.
- **Statistics.** \`rating\` is the average of the shown feedbacks to 2 decimals (null without any),
  \`totalProductsSold\` the units sold over all the shop's products, \`customersCount\` the customers
  with a completed order. A feedback whose appeal was accepted is neither shown nor counted.
  Feedbacks name the products bought as on the invoice, leaving out products that are private or
  internal now.
- **Never public:** serials, service texts, dynamic URLs, delivered items, customer notes, e-mails,
  IPs, invoice ids, payment credentials. The response schemas list only public fields, so the
  serialiser drops anything else.
- **HTTP caching.** Every page carries a strong \`ETag\` (a hash of the body) and
  \`Cache-Control: public, max-age=0, must-revalidate\` (\`private\` for a password-protected shop); a
  matching \`If-None-Match\` gets 304 without a body. Each page served with 200 counts as a visit
  for the real-time analytics (see *Analytics*).
- **Page cache.** A page is a pure function of the shop's data and the request's path and query,
  so its serialised answer and ETag are kept in memory (\`PAGE_CACHE_MAX_BYTES\`, whole shops
  evicted oldest first) and served without touching the database. Every change empties the shop's
  pages *before it is answered*: any successful non-GET owner call for the shop, a checkout, a
  ticket, a feedback, and an unpaid invoice expiring (its stock comes back). A page is stored under
  the shop's version read before its data was, so a page computed from data read before a write is
  never served after it. Versions live in the process, or in Redis when \`REDIS_URL\` is set, so an
  edit made through one instance is seen by every other one at once (each hit then costs one Redis
  \`GET\`). A hit is an identical request
  (query parameters sorted, \`key\` included) that was once answered 200, so it skips no check the
  request would fail; a password-protected shop's key is still checked. Entries also expire after
  60 s, which bounds staleness should the database be edited by hand. Requests that miss the same
  page under the same version at once compute it once and are all answered with that page, even if a
  later write has moved the version on meanwhile (the page was read after they read the version, so
  it holds every write answered before they arrived).`,
      },
      {
        name: 'Checkout',
        description: `
A buyer checks out with \`POST /v2/public/shops/{shopId}/invoices\` (no API key; rate limited per
client IP; honours \`Idempotency-Key\`):

\`\`\`json
{ "customerEmail": "buyer@example.com", "gateway": "tipjar",
  "parts": [{ "productId": 1, "productVariantId": 1, "quantity": 2 }],
  "coupon": "TENOFF", "customFields": { "nick": "bob#1234" }, "affiliateCode": "uZPXnmm5",
  "key": "storefront password", "chatUserId": "80351110224678912" }
\`\`\`

**Checks, in order:** shop not on hold (422); products purchasable (private and internal ones do
not exist for buyers: 400; on hold: 422); quantities within the variant's limits (422); custom
fields — required, type, pattern — (400 \`customFields.<id>: …\`) and the chat user id (400); the
gateway enabled in the shop and allowed by the variant, and its VPN rules (422); the blacklist
(422); the coupon (422); stock (422). Each error names the part (\`parts[0].quantity: …\`). Unknown,
disabled or one's own referral codes are ignored rather than refused.

**Then one transaction** reserves the stock (serials and counted stock alike; two buyers never get
the same serial, and stock never goes below zero) and the coupon use, creates the customer on first
sight, and writes the invoice, the buyer's IP and an \`invoice.created\` event. The answer is the
customer's view of the pending invoice with \`payment\` instructions for the gateway. How it is
paid depends on the gateway (see *Payments*): a card (\`cardconnect\`, Stripe Checkout) or crypto
(\`cryptocommerce\`) order carries \`payment.url\`, the provider's page where the buyer pays; the
provider's callback completes the invoice. If the provider cannot be reached the invoice is cancelled
at once (stock returned) and the answer is a 502 \`payment_provider_error\`. Manual methods (tip jar,
wallet e-mail, mobile cash, wallet-ff) carry the owner's handle, e-mail or cashtag, the amount and the
invoice id as the reference to quote; the owner confirms the money arrived (\`process\`, see
*Invoices*). An unpaid invoice expires after the shop's invoice lifetime (a card or crypto order:
when the provider's page closes, plus 10 minutes for its last callback).

**The balance gateway** is for the owner of the address only: it needs the buyer signed in to the
customer area (see *Customer area*), \`Authorization: Bearer <token>\` of a session of this shop whose
e-mail is \`customerEmail\`. Without a live session it is a 401, with another address's a 403, before
any other check: nothing is created, and a refusal is not kept under an \`Idempotency-Key\`. It
completes the order at once when the customer's balance in the shop covers
it (else 422 and nothing is kept). If that completion fails for any reason (the balance fell since
the check; a dynamic product's URL failed) the invoice is cancelled in the same request, its stock
and coupon use returned, nothing charged, and the answer is a 422 saying the order was not placed;
the owner sees it \`cancelled\`, with its \`deliveryError\`.

\`GET /v2/public/invoices/{invoiceId}\` is the customer's page: status, parts, totals and, once
completed, the deliverables — never the e-mail, IP or credentials; \`url\` is the invoice's page on
the storefront. While it is pending the buyer may cancel it
(\`POST /v2/public/invoices/{invoiceId}/cancel\`, no key): its stock and coupon use come back.

**Browsers.** A storefront on another origin may call these paths from the browser when the
server lists that origin in \`CORS_ORIGINS\` (\`*\` for any): answers then carry
\`Access-Control-Allow-Origin\`, and preflights (a JSON checkout with an \`Idempotency-Key\`) are
answered 204 with the methods (GET, HEAD, POST, DELETE) and headers (\`Content-Type\`, \`Idempotency-Key\`,
\`X-Request-Id\`, \`Authorization\` for a customer session) allowed. Without it, and on every owner path, no
CORS header is sent.`,
      },
      {
        name: 'Payments',
        description: `
Each gateway is one small adapter behind one interface: start a payment for an invoice, check and
apply the provider's callback, refund. The invoice lifecycle stays the only writer of an invoice's
status.

| gateway | how the buyer pays | what completes the order | refunds |
|---|---|---|---|
| \`cardconnect\` | Stripe Checkout: a Checkout Session per invoice, opened from \`payment.url\` | \`checkout.session.completed\` (paid), \`checkout.session.async_payment_succeeded\` | through Stripe |
| \`cryptocommerce\` | a hosted crypto charge (Coinbase Commerce API), opened from \`payment.url\` | \`charge:confirmed\`, \`charge:resolved\` | recorded; the owner sends them |
| \`tipjar\`, \`walletemail\`, \`mobilecash\`, \`wallet-ff\` | the instructions on the invoice page and in the mail | the owner's \`process\` with the payment reference | recorded |
| \`balance\` | the store balance, signed in to the customer area | at once | credited back to the balance |

\`virtual-payments\` and \`cardreader\` have no adapter yet: enabling them is a 422 (their settings
can be kept).

The provider calls \`POST /v2/public/payments/{provider}/{shopId}/webhook\`, signed with the shop's
\`webhookSecret\`. A callback completes an invoice only for the payment started for it, of its exact
amount and currency, and once per provider event id, also when it arrives twice at once.
Refunds: \`POST /self/{shopId}/invoices/{invoiceId}/refund\` (see *Invoices*).`,
      },
      {
        name: 'Customer area',
        description: `
A buyer signs in to a shop without a password, with a one-time code mailed to them:

1. \`POST /v2/public/shops/{shopId}/customer/sign-in\` \`{ "email": "buyer@example.com" }\` mails a
   6-digit code, valid 15 minutes and 5 tries. The answer is the same whether or not the shop knows
   the address. At most 5 codes per address and shop and 20 per client IP an hour (429 with
   \`Retry-After\`).
2. \`POST …/customer/session\` \`{ "email", "code" }\` answers a session token, once:
   \`{ "token": "…", "expiresAt": "…" }\`, valid 30 days. A wrong, expired, used or unknown code is
   always the same 401 (\`code: is wrong, expired or used up\`); after 5 tries a code is dead, and
   wrong codes count as failed authentications of the client IP.
3. The token goes in \`Authorization: Bearer <token>\`: \`GET …/customer\` answers the address, the
   store balance and the buyer's own orders of this shop (goods of completed ones included), and a
   checkout with the \`balance\` gateway for that address may spend the balance (see *Checkout*).
   \`DELETE …/customer/session\` signs out.

A session opens one shop only; another shop's token, an expired or signed-out one is a 401. Codes
and tokens are kept only as sha256 hashes, compared in constant time, and appear in no log, URL or
mail subject. A password-protected shop needs \`key\` to sign in and read the account (403
\`shop_locked\`). The storefront's own customer area (\`/account\`) uses the same sessions, in an
httpOnly cookie.`,
      },
    ],
  },
  {
    name: 'Orders and customers',
    tags: [
      {
        name: 'Invoices',
        description: `
**Lifecycle:** \`pending → completed | expired | cancelled\`, nothing else (a declared transition
table). Unpaid invoices expire after the shop's invoice lifetime (\`settings/invoices\`, default 60
minutes): a background job returns their serials, counted stock and coupon use. Reads never show an
overdue invoice as \`pending\`, worker or not: the invoice list (its items, \`status\` filter and
\`totalCount\`), the dashboards and checkout expire every overdue invoice of the shop before they
answer, and one invoice read alone (owner or customer) is expired as it is read.

**Completion** (\`process\`, or a balance checkout) is one transaction: status, balance debit
(balance gateway), stock consumption and deliverables (one serial per unit, the service text, or
the dynamic answer), customer totals, units sold, affiliate commission, the delivery e-mail in the
outbox, and an \`invoice.completed\` event.

**Dynamic delivery.** A dynamic product's URL is POSTed
\`{ invoiceId, shopId, productId, variantId, quantity, customerEmail, customFields, replacement }\`
first (no redirects, \`DYNAMIC_DELIVERY_TIMEOUT_MS\`); the 2xx text body is the deliverable, read up
to 64 KiB (a longer answer is a failure). The URL must resolve to public addresses, as for
webhooks: a loopback, private or link-local one is a 400 when the product is saved (a name that
does not resolve yet is accepted), and every delivery connects only to an address checked as it
connects. A failure is recorded as \`deliveryError\` (naming the endpoint by its origin, never its
path or query) and the invoice stays pending; processing again retries.

The owner's view of an invoice has its deliverables, replacements, the buyer's IP and custom
fields. A replacement delivers fresh items of the same variant at no charge and mails them to the
customer. \`process\`, \`replacement\`, \`cancel\` and checkout honour \`Idempotency-Key\`.

**Cancellation** (\`cancel\`, by the owner, or by the buyer through the public API) ends a pending
invoice as expiry does — stock and coupon use returned, an \`invoice.cancelled\` event — and is a
409 in any other status; of a cancel and a payment of the same invoice at once, exactly one wins.

Both views carry \`url\`, the absolute link of the invoice's storefront page (see the shop's
\`storefrontUrl\`), and so does the \`invoice\` of every \`invoice.*\` webhook.`,
      },
      {
        name: 'Customers',
        description: `
A customer is created on their first checkout in the shop, one per e-mail. Each has a balance in the
shop currency, paid with through the \`balance\` gateway: \`balance/add\` and \`balance/remove\` write a
ledger row each and answer the new balance; a removal never takes it below zero (422), concurrent
calls lose nothing, and both honour \`Idempotency-Key\`. \`…/ips\` lists the distinct IPs the customer
bought from, with first and last seen and a count; \`customers/stats\` gives totals over a range
(default the last 30 days). Changing the shop currency keeps balances as numbers.`,
      },
      {
        name: 'Affiliates',
        description: `
Every customer has a \`referralCode\`; a checkout carrying it as \`affiliateCode\` is referred by that
customer. When a referred order completes, the shop's affiliate percentage (\`settings/affiliate\`)
of its total, rounded down to the minor unit, is credited to the referrer's balance. Unknown,
disabled or one's own codes are ignored at checkout. \`affiliates\` lists the customers whose code
brought orders (\`referredOrders\`, \`referredRevenue\`, \`earned\`, \`disabled\`); disabling a referral
stops commission from then on.`,
      },
      {
        name: 'Coupons',
        description: `
- **Codes** (\`name\`) are 1–64 of \`A–Z a–z 0–9 _ -\`, unique per shop without regard to case (409);
  buyers may type them in any case.
- **Discounts.** \`isFixed: false\`: a percentage, > 0 and ≤ 100 with at most 2 decimals, taken off
  the eligible subtotal and rounded down to the minor unit. \`isFixed: true\`: an amount in the shop
  currency (its minor-unit digits at most), never more than the eligible subtotal.
- **Restrictions.** \`restrictToProducts\` (products of this shop; empty: all): the order needs at
  least one of them and only their parts are discounted. \`restrictToGateways\` (empty: all).
  \`startDate\`/\`endDate\` (a date — the whole day in the shop's timezone — or a date-time;
  inclusive, start ≤ end) bound when it is valid.
- **Uses.** \`uses\` counts pending and completed invoices holding the coupon (an expired or
  cancelled one gives its use back); it never passes \`maxUses\`, even under concurrent checkouts,
  and a PUT lowering \`maxUses\` below \`uses\` is a 409. Deleting a coupon leaves invoices the code
  they used; changing the shop currency keeps fixed amounts as numbers.`,
      },
      {
        name: 'Blacklist',
        description: `
Checkout refuses (422) a buyer matching any blocked item:

- \`email\`: stored lower-case, matched without regard to case.
- \`ip\`: an address or CIDR range, stored canonical (\`2001:DB8::/32\` → \`2001:db8::/32\`,
  \`1.2.3.4/32\` → \`1.2.3.4\`); a range with bits set past its prefix such as \`10.0.0.1/8\` is refused
  rather than widened; an IPv4-mapped IPv6 address such as \`::ffff:1.2.3.4\` is its IPv4 address.
- \`country\`: ISO 3166-1 alpha-2, plus \`XK\`; stored upper-case.

The same type and data twice in a shop is a 409.`,
      },
    ],
  },
  {
    name: 'Support and content',
    tags: [
      {
        name: 'FAQs',
        description: `
Questions and answers for the storefront's FAQ page, which lists them all ordered by \`position\`,
then id (the owner's list is in the same order). A new FAQ without a \`position\` goes after the last
one; a PUT without one keeps it where it is. Texts are trimmed; a blank required text is a 400.`,
      },
      {
        name: 'Announcements',
        description: `
News posts for the storefront. An announcement's path is generated from its title and made unique
in the shop with a numeric suffix (\`summer-sale\`, \`summer-sale-2\`); a given \`path\` that is taken is
a 409. A PUT keeps the path, also when the title changes, unless a new \`path\` is given. Texts are
trimmed; a blank required text is a 400, empty optional texts are stored as null. Private
announcements are on no public page; unlisted ones are reachable by path only.`,
      },
      {
        name: 'Feedbacks',
        description: `
A buyer rates a completed invoice once (\`POST /v2/public/invoices/{invoiceId}/feedback\`, no API
key). Feedback is public: it carries the rating, the comment, the shop's answer and the invoice's
products, nothing about the customer. The owner may answer it publicly, or appeal it: an appeal
stays \`open\` until the operator of the server resolves it (\`shopd appeals accept|reject\`); an
accepted appeal hides the feedback from the storefront and from every rating figure (storefront
statistics, the dashboard's \`averageRating\`) at once. A feedback already hidden cannot be appealed
again (409). A new feedback writes a \`feedback.created\` event in the transaction of the change.`,
      },
      {
        name: 'Tickets',
        description: `
Support conversations between a buyer and the shop. A buyer opens one with no API key and gets an
\`accessKey\` (32 url-safe characters) with it: shown once, stored as its SHA-256 and compared in
constant time; a wrong key and an unknown ticket are the same 404. Tickets move through a declared
table: a shop message makes a ticket \`answered\`, a customer message \`open\`, close \`closed\`; a
message or close on a closed ticket is a 409. The customer is told of the shop's answers by e-mail.
\`ticket.created\` and \`ticket.message\` (either author) events are written in the transaction of the
change.`,
      },
    ],
  },
  {
    name: 'Figures',
    tags: [
      {
        name: 'Dashboards',
        description: `
Sales figures over a range, exact, in the shop currency's major unit.

- **Ranges.** \`fromDate\`/\`toDate\` as everywhere: a bare date is the whole day in the shop's
  timezone (\`settings/timezone\`). Default: the last 30 days ending today. At most 366 days (400
  beyond). Revenue and completions count by completion time, orders by creation time; a day or an
  hour is the shop's local one. Overdue unpaid invoices are expired before counting, as on every
  invoice read.
- **From rollups, not estimates.** Every figure is exact, in integer minor units, but is not
  aggregated from the invoices at read time: each change that moves a figure (checkout,
  completion, expiry and cancellation, a new customer, feedback, an accepted appeal,
  replacement) adds its deltas to per-shop rollups in the same transaction. A rollup row holds
  the deltas of one bucket of shop-local days (a day, 32 days or 1024 days); a range is summed
  from the whole buckets it covers and its ragged ends, so a year reads at most about 70 rows per
  key and never the invoices. A range given as date-times that cut a local day reads those
  partial days from the invoices.
- **Timezone changes.** Changing the shop's timezone is one short write; the rollups are then
  rebuilt in the new local days in the background, in short batches (minutes for a million
  invoices), so no other request waits behind it. Meanwhile both dashboards answer
  \`rollupsRebuilding: true\`: totals over the range stay exact, but the series days and
  \`ordersByHour\` are those of the previous offset until it ends.
- **\`returningCustomerRate\` is a repeat-purchase rate.** An exact count of distinct returning
  customers over an arbitrary range cannot be rolled up (it would mean reading every order of the
  range), so the rate is per order: when an invoice completes, the same transaction records whether
  its customer had already completed an order before, and the rate is repeat orders ÷ completed
  orders of the range.`,
      },
      {
        name: 'Analytics',
        description: `
Real-time visits of the public storefront pages: each page served with 200 counts. A visitor is the
SHA-256 of shop, IP and user agent; no IP is kept for this. Figures are in whole minutes; \`at\` reads
them as of another instant.

Views are buffered in memory and stored in batches (every 250 ms, or at 2,000 waiting rows);
repeated views of a page by the same visitor in the same minute are one row with their count. A
real-time read flushes its own instance's buffer first; other instances' views arrive within
250 ms. Without Redis the views are rows of the database, pruned after two hours. With \`REDIS_URL\`
they are per-minute counters shared by every instance (a view count, a HyperLogLog of visitors —
exact for small numbers, within about 1 % at scale — and a sorted set of pages) under the key
prefix \`REDIS_KEY_PREFIX\` (default \`shopd:\`), expiring after about two hours.`,
      },
    ],
  },
  {
    name: 'Integrations',
    tags: [
      {
        name: 'Webhooks',
        description: `
Endpoints that receive the shop's events: \`invoice.created\`, \`invoice.completed\`,
\`invoice.expired\`, \`invoice.replaced\`, \`invoice.cancelled\`, \`ticket.created\`, \`ticket.message\`,
\`feedback.created\`, \`product.out_of_stock\`, \`customer.balance_changed\` (and \`ping\`, sent by the
test call). An endpoint's signing secret (\`whsec_…\`) is shown only when it is registered.

- **An outbox.** Each event is written in the same transaction as the change that caused it,
  together with one delivery per subscribed endpoint, so nothing is announced that did not happen
  and nothing that happened is lost. Pending deliveries survive restarts.
- **Signed.** A worker in every instance POSTs \`{ id, type, createdAt, shopId, data }\` signed per
  the Standard Webhooks specification — \`webhook-id\` (the event id, the same on every retry),
  \`webhook-timestamp\`, \`webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\` —
  so the specification's libraries verify it (\`new Webhook(secret).verify(body, headers)\` in the
  \`standardwebhooks\` package).
- **Success and retries.** A 2xx within \`WEBHOOK_TIMEOUT_MS\` (15 s) is success, redirects are not
  followed, a 410 turns the endpoint off (enabling it again clears \`disabledReason\`). Failures are
  retried after 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h (±20 % jitter, about
  three days), then the delivery fails. Every attempt is listed under \`deliveries\`.
- **Order.** Events about the same object reach an endpoint in the order they happened, one at a
  time: the next is sent only once the one before it succeeded or finally failed. The object is the
  invoice for \`invoice.*\` and \`feedback.created\`, the ticket for \`ticket.*\`, the customer for
  \`customer.balance_changed\`, the product for \`product.out_of_stock\`. Events about different
  objects go out side by side, up to \`WEBHOOK_CONCURRENCY\` (8) at once per endpoint, counted across
  instances; a failing delivery holds back only its own object's later events. Delivery is at least
  once: deduplicate on \`webhook-id\`.
- **Throughput.** A worker keeps sending while deliveries are due: an endpoint that answers in
  10 ms receives hundreds of events a second. A delivery claimed by an instance that died is taken
  over when its two-minute claim lapses. On PostgreSQL, instances claiming for one endpoint take
  turns on its row, so none is sent twice and the per-endpoint limit holds.
- **Invoice events** carry \`invoiceId\`, their own fields (\`total\`, \`currency\`, \`gateway\`;
  \`commission\`; \`partInvoiceId\`, \`quantity\`) and \`invoice\`: the invoice exactly as
  \`GET /self/{shopId}/invoices/{invoiceId}\` showed it right after the change, read in the same
  transaction, so a receiver needs no follow-up call. It includes the delivered goods, as the owner
  API does: use an \`https\` URL.
- **Addresses.** URLs must be http(s) and resolve only to public addresses — loopback, private,
  link-local (cloud metadata), unique-local, CGNAT, multicast and reserved ranges are refused in
  IPv4 and IPv6, at registration and again at each connection (the socket's own DNS lookup is
  checked, so rebinding cannot slip past) — unless the server runs with
  \`ALLOW_PRIVATE_WEBHOOKS=true\`. Dynamic delivery URLs follow the same rules.`,
      },
    ],
  },
  {
    name: 'Operations',
    tags: [
      {
        name: 'System',
        description: `
\`/health\` answers 200 when the process and its database answer, and 503 \`service_unavailable\`
when the database does not: point a load balancer or container health check at it.`,
      },
    ],
  },
];

/** The top-level `tags` list: every group's tags, in order, each text without its leading newline. */
export const tags = tagGroups.flatMap((group) =>
  group.tags.map(({ name, description }) => ({ name, description: description.trim() })),
);
