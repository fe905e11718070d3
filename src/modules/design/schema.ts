import { type Static, Type } from '@sinclair/typebox';
import { EMAIL_PATTERN, HttpsUrl, Nullable, Patch, StringEnum } from '../../schemas/common.js';

/**
 * The one stored storefront design behind both `settings/design/*` and `customization/*`
 * (contract section 4).
 */
export const socialPlatforms = [
  'discord',
  'telegram',
  'youtube',
  'twitter',
  'instagram',
  'tiktok',
  'website',
  'email',
  'other',
] as const;

const HexColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Hex colour #rrggbb (stored lower-case).' });
/** Widget ids are pasted into third-party script snippets by the storefront: ids only, no markup. */
const WidgetKey = Nullable(
  Type.String({
    maxLength: 200,
    pattern: '^[A-Za-z0-9._:-]*$',
    description: 'Letters, digits and . _ : - only; null or empty clears.',
  }),
);

const designFlagFields = {
  primaryColor: HexColor,
  primaryColorAccent: HexColor,
  backgroundColor: HexColor,
  secondaryColor: HexColor,
  primaryTextColor: HexColor,
  secondaryTextColor: HexColor,
  darkMode: Type.Boolean(),
  disableBusinessName: Type.Boolean(),
  disableSearchBar: Type.Boolean(),
  centerProductTitle: Type.Boolean(),
  disableBusinessLogo: Type.Boolean(),
  disableReviews: Type.Boolean(),
  disableProductsSold: Type.Boolean(),
  hideOutOfStockProducts: Type.Boolean(),
  disableShadows: Type.Boolean(),
  disableSupport: Type.Boolean(),
  disableSnow: Type.Boolean(),
  hideProductStock: Type.Boolean(),
  fontLink: Nullable(HttpsUrl('A web font stylesheet; null clears.')),
};
export const DesignFlags = Type.Object(designFlagFields);

const widgetFields = {
  crispKey: WidgetKey,
  googleAnalyticsKey: WidgetKey,
  hotjarKey: WidgetKey,
  intercomKey: WidgetKey,
};
export const Widgets = Type.Object(widgetFields);

const storefrontFields = {
  title: Nullable(Type.String({ maxLength: 200 })),
  description: Nullable(Type.String({ maxLength: 5000 })),
  buttonText: Nullable(Type.String({ maxLength: 64 })),
  disableButton: Type.Boolean(),
  disableTitle: Type.Boolean(),
  disableDescription: Type.Boolean(),
};
export const Storefront = Type.Object({
  ...storefrontFields,
  imageUrl: Nullable(Type.String({ description: 'Read-only: set by uploading the storefront image.' })),
});

const seoFields = {
  metaTitle: Nullable(Type.String({ maxLength: 70 })),
  metaDescription: Nullable(Type.String({ maxLength: 160 })),
};
export const Seo = Type.Object({
  ...seoFields,
  imageUrl: Nullable(Type.String({ description: 'Read-only: set by uploading the SEO image.' })),
  faviconUrl: Nullable(Type.String({ description: 'Read-only: set by uploading the favicon.' })),
});

/** `email` links are an address or a `mailto:` link; the others are https URLs. */
const MAILTO_PATTERN = `^(?:[Mm][Aa][Ii][Ll][Tt][Oo]:)?${EMAIL_PATTERN.slice(1)}`;
export const SocialLink = Type.Object(
  {
    platform: StringEnum(socialPlatforms),
    link: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An https URL; for `email`, an e-mail address or a `mailto:` link.',
    }),
  },
  {
    if: { type: 'object', properties: { platform: { const: 'email' } }, required: ['platform'] },
    then: {
      type: 'object',
      properties: {
        link: {
          type: 'string',
          pattern: MAILTO_PATTERN,
          errorMessage: { pattern: 'must be an e-mail address or a mailto: link' },
        },
      },
    },
    else: { type: 'object', properties: { link: HttpsUrl() } },
  },
);

export const Design = Type.Object({
  design: DesignFlags,
  widgets: Widgets,
  storefront: Storefront,
  seo: Seo,
  logoUrl: Nullable(Type.String({ description: 'Read-only: set by uploading the logo.' })),
  links: Type.Object({ socialLinks: Type.Array(SocialLink) }),
});
export type Design = Static<typeof Design>;

export const defaultDesign: Design = {
  design: {
    primaryColor: '#6366f1',
    primaryColorAccent: '#4f46e5',
    backgroundColor: '#0f172a',
    secondaryColor: '#1e293b',
    primaryTextColor: '#f8fafc',
    secondaryTextColor: '#94a3b8',
    darkMode: true,
    disableBusinessName: false,
    disableSearchBar: false,
    centerProductTitle: false,
    disableBusinessLogo: false,
    disableReviews: false,
    disableProductsSold: false,
    hideOutOfStockProducts: false,
    disableShadows: false,
    disableSupport: false,
    disableSnow: false,
    hideProductStock: false,
    fontLink: null,
  },
  widgets: { crispKey: null, googleAnalyticsKey: null, hotjarKey: null, intercomKey: null },
  storefront: {
    title: null,
    description: null,
    buttonText: null,
    disableButton: false,
    disableTitle: false,
    disableDescription: false,
    imageUrl: null,
  },
  seo: { metaTitle: null, metaDescription: null, imageUrl: null, faviconUrl: null },
  logoUrl: null,
  links: { socialLinks: [] },
};

/** Partial updates: every field optional and nullable (Patch). */
const partial = 'Partial update: an omitted field keeps its value, null sets it back to its default.';

export const DesignFlagsBody = Patch(designFlagFields, {
  description: `${partial} Colours are hex #rrggbb; fontLink an https URL or null.`,
});
export type DesignFlagsBody = Static<typeof DesignFlagsBody>;

export const WidgetsBody = Patch(widgetFields, { description: `${partial} null or empty clears a key.` });
export type WidgetsBody = Static<typeof WidgetsBody>;

export const StorefrontBody = Patch(storefrontFields, {
  description: `${partial} Texts set to null or empty are cleared. The image is set by upload, not here (an imageUrl sent is ignored).`,
});
export type StorefrontBody = Static<typeof StorefrontBody>;

export const SeoBody = Patch(seoFields, {
  description: `${partial} Texts set to null or empty are cleared. The image and favicon are set by upload (imageUrl and faviconUrl sent are ignored).`,
});
export type SeoBody = Static<typeof SeoBody>;

export const LinksBody = Type.Object({
  socialLinks: Nullable(
    Type.Array(SocialLink, {
      maxItems: 20,
      description: 'Replaces the whole list (0–20 links, in display order); null clears it.',
    }),
  ),
});
export type LinksBody = Static<typeof LinksBody>;
