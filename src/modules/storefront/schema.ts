import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { CursorPage, CursorPageQuery, Nullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { DesignFlags, socialPlatforms } from '../design/index.js';
import { groupTypes, listingTypes } from '../listings/index.js';
import { customFieldTypes, productTypes } from '../products/index.js';
import { PublicShopId } from '../shops/index.js';

/**
 * The public storefront pages (contract section 9). These schemas are the whole public view:
 * Fastify serialises answers through them and drops every field they do not list, so serials,
 * service texts, dynamic URLs, e-mails, IPs, payment credentials and the owner's visibility
 * flags cannot reach a buyer even if a view were to carry them by mistake.
 */

const Money = Type.Object({ amount: Type.Number(), currency: Type.String() });
const Url = Nullable(Type.String());

const StockFigure = Type.Optional(
  Nullable(
    Type.Integer({
      description: 'Units left; null = unlimited. Omitted when the shop hides product stock (hideProductStock).',
    }),
  ),
);
const InStock = Type.Boolean({
  description:
    'Whether anything is left to buy (true for unlimited stock); present even when stock figures are hidden.',
});

// ---- mainDetails: on every page ---------------------------------------------------------------

export const StorefrontTexts = Type.Object({
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  buttonText: Nullable(Type.String()),
  disableButton: Type.Boolean(),
  disableTitle: Type.Boolean(),
  disableDescription: Type.Boolean(),
});

/** The design flags and colours are all public: the storefront honours them (the server applies hideProductStock). */
export const PublicDesign = DesignFlags;

export const MainDetails = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  currency: Type.String(),
  onHold: Type.Boolean({ description: 'An on-hold shop takes no orders.' }),
  paymentMethods: Type.Array(Type.String(), {
    description:
      'The gateways enabled in the shop now. Empty: nothing can be bought (the storefront says so rather than showing a buy button).',
  }),
  popup: Nullable(Type.String()),
  terms: Nullable(Type.String()),
  storefront: StorefrontTexts,
  design: PublicDesign,
  widgets: Type.Object({
    crispKey: Nullable(Type.String()),
    googleAnalyticsKey: Nullable(Type.String()),
    hotjarKey: Nullable(Type.String()),
    intercomKey: Nullable(Type.String()),
  }),
  seo: Type.Object({ metaTitle: Nullable(Type.String()), metaDescription: Nullable(Type.String()), imageUrl: Url }),
  socialLinks: Type.Array(Type.Object({ platform: StringEnum(socialPlatforms), link: Type.String() })),
  logoUrl: Url,
  backgroundUrl: Url,
  faviconUrl: Url,
});

// ---- catalog ----------------------------------------------------------------------------------

/** A product as a listing shows it. */
export const ListedProduct = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  shortDescription: Nullable(Type.String()),
  path: Type.String(),
  thumbnailUrl: Url,
  onHold: Type.Boolean({ description: 'Shown but not purchasable.' }),
  minPrice: Money,
  stock: StockFigure,
  inStock: InStock,
  soldCount: Type.Integer(),
});

/** A group with its public products, as a listing (summaries) or on its own page (full products). */
function groupWith<P extends TSchema>(product: P) {
  return Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    description: Nullable(Type.String()),
    path: Type.String(),
    type: StringEnum(groupTypes),
    priority: Type.Integer(),
    main: Type.Boolean(),
    thumbnailUrl: Url,
    products: Type.Array(product, { description: "The group's listed products, in the group's order." }),
  });
}

export const ListedGroup = groupWith(ListedProduct);

export const PublicListing = Type.Object({
  id: Type.Integer(),
  type: StringEnum(listingTypes),
  path: Type.String(),
  position: Type.Integer(),
  product: Nullable({ ...ListedProduct, description: 'Set when type is product.' }),
  group: Nullable({ ...ListedGroup, description: 'Set when type is group.' }),
});
export type PublicListing = Static<typeof PublicListing>;

export const PublicCategory = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  listingIds: Type.Array(Type.Integer(), { description: 'Ids of listings on this page, in the category order.' }),
});

export const PublicVariant = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  productType: StringEnum(productTypes),
  priceDetails: Money,
  stock: StockFigure,
  inStock: InStock,
  minAmount: Type.Integer(),
  maxAmount: Nullable(Type.Integer()),
  gateways: Type.Array(Type.Object({ gateway: Type.String(), price: Money }), {
    description:
      'The gateways this variant can be paid with right now (enabled in the shop and allowed by the variant), each with its price.',
  }),
  customFields: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      type: StringEnum(customFieldTypes),
      required: Type.Boolean(),
      placeholder: Nullable(Type.String()),
      regex: Nullable(Type.String()),
    }),
  ),
  warranty: Nullable(Type.Object({ text: Type.String(), durationSeconds: Type.Integer() })),
});

export const PublicProduct = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  shortDescription: Nullable(Type.String()),
  description: Type.String(),
  path: Type.String(),
  seo: Type.Object({ metaTitle: Nullable(Type.String()), metaDescription: Nullable(Type.String()), imageUrl: Url }),
  thumbnailUrl: Url,
  images: Type.Array(
    Type.Object({ url: Type.String(), alt: Type.String({ description: "What it shows; '' when it only decorates." }) }),
    { description: 'The gallery: images besides the thumbnail, in the order the owner gave them.' },
  ),
  onHold: Type.Boolean({ description: 'Shown but not purchasable.' }),
  soldCount: Type.Integer(),
  variants: Type.Array(PublicVariant),
});

export const ListingDetail = Type.Object({
  id: Nullable(Type.Integer({ description: 'The listing id; null for a product shown inside a group.' })),
  type: StringEnum(listingTypes),
  path: Type.String(),
  product: Nullable(PublicProduct),
  group: Nullable(groupWith(PublicProduct)),
});

// ---- content ----------------------------------------------------------------------------------

export const PublicFeedback = Type.Object({
  id: Type.Integer(),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  comment: Nullable(Type.String()),
  answer: Nullable(Type.String({ description: "The shop's answer." })),
  answeredAt: Nullable(Timestamp),
  products: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String() }), {
    description: 'What the order bought, as named on the invoice.',
  }),
  createdAt: Timestamp,
});

export const Statistics = Type.Object({
  rating: Nullable(Type.Number({ description: 'Average feedback rating, 2 decimals; null without feedbacks.' })),
  totalFeedbacks: Type.Integer(),
  totalProductsSold: Type.Integer({ description: 'Units sold over all products of the shop.' }),
  customersCount: Type.Integer({ description: 'Customers with at least one completed order.' }),
});

export const AnnouncementSummary = Type.Object({
  id: Type.Integer(),
  path: Type.String(),
  title: Type.String(),
  shortDescription: Nullable(Type.String()),
  buttonText: Nullable(Type.String()),
  buttonLink: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const PublicAnnouncement = Type.Composite([AnnouncementSummary, Type.Object({ description: Type.String() })]);

export const PublicFaq = Type.Object({
  id: Type.Integer(),
  question: Type.String(),
  answer: Type.String(),
  position: Type.Integer(),
});

// ---- pages ------------------------------------------------------------------------------------

export const MainPage = Type.Object({
  shop: Type.Composite([
    StorefrontTexts,
    Type.Object({ name: Type.String(), backgroundUrl: Url, statistics: Statistics }),
  ]),
  feedbacks: Type.Array(PublicFeedback, { description: 'The latest 10.' }),
  announcements: Type.Array(AnnouncementSummary, {
    description: 'Listed announcements (neither private nor unlisted), newest first, at most 50.',
  }),
  listings: Type.Array(PublicListing),
  categories: Type.Array(PublicCategory),
  mainDetails: MainDetails,
});

export const ListingsPage = Type.Object({
  listings: Type.Array(PublicListing),
  categories: Type.Array(PublicCategory),
  mainDetails: MainDetails,
});

export const ListingPage = Type.Object({
  listing: ListingDetail,
  feedbacks: Type.Array(PublicFeedback, {
    description: 'The latest 10 feedbacks of orders that bought this product (or a product of this group).',
  }),
  statistics: Type.Object({ rating: Statistics.properties.rating, totalFeedbacks: Type.Integer() }),
  mainDetails: MainDetails,
});

export const FeedbacksPage = Type.Object({
  feedbacks: CursorPage(PublicFeedback),
  statistics: Statistics,
  mainDetails: MainDetails,
});

export const FaqsPage = Type.Object({ faqs: Type.Array(PublicFaq), mainDetails: MainDetails });

/** The announcement's own fields sit at the top too, where the original clients read them. */
export const AnnouncementPage = Type.Composite([
  PublicAnnouncement,
  Type.Object({ announcement: PublicAnnouncement, mainDetails: MainDetails }),
]);

// ---- requests ---------------------------------------------------------------------------------

const Key = Type.Optional(
  Type.String({
    maxLength: 128,
    description: 'The storefront password, when the shop has one (else 403 shop_locked).',
  }),
);

export const KeyQuery = Type.Object({ key: Key });
export type KeyQuery = Static<typeof KeyQuery>;

export const FeedbacksQuery = Type.Composite([CursorPageQuery, KeyQuery]);
export type FeedbacksQuery = Static<typeof FeedbacksQuery>;

const PathSegment = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
export const ListingParams = Type.Object({
  shopId: PublicShopId,
  listingPath: PathSegment('The path of a product or group.'),
});
export const AnnouncementParams = Type.Object({
  shopId: PublicShopId,
  announcementPath: PathSegment('The path of an announcement.'),
});
