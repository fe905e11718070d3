import type { Settings } from '../../api/queries/settings';
import { strings } from '../../strings';
import { orNull } from './section';

/**
 * The design screen's unsaved edits (colours and switches, the storefront header) and how they
 * differ from what is saved: the form edits them, the preview shows them.
 */

export type Design = Settings['design'];
export type Flags = Design['design'];
export type HeaderDraft = {
  title: string;
  description: string;
  buttonText: string;
  disableTitle: boolean;
  disableDescription: boolean;
  disableButton: boolean;
};
export type DesignDraft = { flags: Flags; fontLink: string; header: HeaderDraft };

/** The colours of the design, in the order the form shows them. */
export const colorFields = [
  ['primaryColor', strings.design.primaryColour],
  ['primaryColorAccent', strings.design.primaryAccent],
  ['backgroundColor', strings.design.background],
  ['secondaryColor', strings.design.secondaryColour],
  ['primaryTextColor', strings.design.text],
  ['secondaryTextColor', strings.design.secondaryText],
] as const satisfies readonly (readonly [keyof Flags, string])[];
export type ColorField = (typeof colorFields)[number][0];

/** The storefront switches; the check below fails to compile when the API adds one. */
export const flagFields = [
  ['darkMode', strings.design.darkMode],
  ['disableBusinessName', strings.design.hideTheShopName],
  ['disableBusinessLogo', strings.design.hideTheLogo],
  ['disableSearchBar', strings.design.hideTheSearchBar],
  ['centerProductTitle', strings.design.centreProductTitles],
  ['disableReviews', strings.design.hideReviews],
  ['disableProductsSold', strings.design.hideProductsSold],
  ['hideOutOfStockProducts', strings.design.hideOutOfStock],
  ['hideProductStock', strings.design.hideStockCounts],
  ['disableShadows', strings.design.noShadows],
  ['disableSupport', strings.design.hideSupport],
  ['disableSnow', strings.design.noSnowShopdsStorefront],
] as const satisfies readonly (readonly [keyof Flags, string])[];
type FlagField = (typeof flagFields)[number][0];
type Covered = ColorField | FlagField | 'fontLink';
const everyFlagListed: Exclude<keyof Flags, Covered> extends never ? true : false = true;
void everyFlagListed;

export const headerSwitches = [
  ['disableTitle', strings.design.hideTheTitle],
  ['disableDescription', strings.design.hideTheDescription],
  ['disableButton', strings.design.hideTheButton],
] as const satisfies readonly (readonly [keyof HeaderDraft, string])[];
const headerTexts = [
  ['title', strings.common.title],
  ['description', strings.common.description],
  ['buttonText', strings.common.buttonText],
] as const satisfies readonly (readonly [keyof HeaderDraft, string])[];

/**
 * The switches the preview can apply to the page the server rendered exactly as the server would:
 * they only set a class. The others add or drop whole parts of a page (search bar, review and
 * support links, stock and sold counts, out-of-stock products), which the page only has when the
 * saved design shows them, so they show after saving. `disableSnow` changes nothing on shopd's own
 * storefront, which never shows snow.
 */
export const previewedFlags = new Set<FlagField>([
  'darkMode',
  'disableShadows',
  'centerProductTitle',
  'disableBusinessName',
  'disableBusinessLogo',
]);

export const isHexColor = (value: string) => /^#[0-9a-fA-F]{6}$/.test(value);

export function draftOf(design: Design): DesignDraft {
  const s = design.storefront;
  return {
    flags: design.design,
    fontLink: design.design.fontLink ?? '',
    header: {
      title: s.title ?? '',
      description: s.description ?? '',
      buttonText: s.buttonText ?? '',
      disableTitle: s.disableTitle,
      disableDescription: s.disableDescription,
      disableButton: s.disableButton,
    },
  };
}

/** The labels of the fields whose draft differs from the saved design, split by whether the preview shows them. */
export function draftChanges(draft: DesignDraft, saved: Design): { shown: string[]; notShown: string[] } {
  const shown: string[] = [];
  const notShown: string[] = [];
  for (const [name, label] of colorFields) {
    // Colours are stored lower-case.
    if (draft.flags[name].toLowerCase() === saved.design[name].toLowerCase()) continue;
    (isHexColor(draft.flags[name]) ? shown : notShown).push(label);
  }
  for (const [name, label] of flagFields) {
    if (draft.flags[name] !== saved.design[name]) (previewedFlags.has(name) ? shown : notShown).push(label);
  }
  if (orNull(draft.fontLink.trim()) !== saved.design.fontLink) notShown.push(strings.design.fontStylesheet);
  for (const [name, label] of headerTexts) {
    if (orNull(draft.header[name]) !== saved.storefront[name]) shown.push(strings.design.header(label.toLowerCase()));
  }
  for (const [name, label] of headerSwitches) {
    if (draft.header[name] !== saved.storefront[name]) shown.push(label);
  }
  return { shown, notShown };
}
