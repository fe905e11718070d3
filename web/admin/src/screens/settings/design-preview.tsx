import { useCallback, useEffect, useRef } from 'react';
import { strings } from '../../strings';
import { Loading } from '../../ui/Page';
import { type ColorField, type DesignDraft, type Flags, isHexColor } from './design-draft';
import { orNull } from './section';

/**
 * The storefront in a frame with the unsaved design laid over it. The frame is this origin's
 * `/s/{subdomain}/`, so its document is reachable: after every edit (and every load of the frame)
 * the draft is applied the way web/storefront/layout.tsx and pages/home.tsx render it. Only what
 * can be applied faithfully is (see `previewedFlags`); a save reloads the frame from the server.
 */

/** The CSS variables the storefront's layout sets from the design (layout.tsx, `themeCss`). */
const cssVariables: readonly (readonly [ColorField, string])[] = [
  ['primaryColor', '--primary'],
  ['primaryColorAccent', '--primary-accent'],
  ['backgroundColor', '--background'],
  ['secondaryColor', '--secondary'],
  ['primaryTextColor', '--text'],
  ['secondaryTextColor', '--text-muted'],
];

const PREVIEW_STYLE = 'data-admin-preview';

/**
 * The colours as the layout's own `:root{…}` rule, placed after it so it wins the same way and
 * loses the same way (to `html.dark`, which the storefront's stylesheet gives more weight). A
 * colour still being typed keeps the saved one; each value is a checked `#rrggbb`.
 */
function applyColours(doc: Document, flags: Flags, saved: Flags) {
  const set = cssVariables.flatMap(([name, variable]) => {
    const value = isHexColor(flags[name]) ? flags[name] : saved[name];
    return isHexColor(value) ? [`${variable}:${value}`] : [];
  });
  let style = doc.head.querySelector<HTMLStyleElement>(`style[${PREVIEW_STYLE}]`);
  if (!style) {
    style = doc.createElement('style');
    style.setAttribute(PREVIEW_STYLE, '');
  }
  style.textContent = set.length === 0 ? '' : `:root{${set.join(';')}}`;
  doc.head.append(style);
}

/** The switches the layout renders as classes: `dark`, `flat` and `centered` on <html>, the hidden shop name, the logo. */
function applyFlags(doc: Document, flags: Flags, logoUrl: string | null) {
  doc.documentElement.classList.toggle('dark', flags.darkMode);
  doc.documentElement.classList.toggle('flat', flags.disableShadows);
  doc.documentElement.classList.toggle('centered', flags.centerProductTitle);
  const brand = doc.querySelector('.site-header .brand');
  if (!brand) return;
  brand.querySelector(':scope > span')?.classList.toggle('visually-hidden', flags.disableBusinessName);
  const logo = brand.querySelector(':scope > img.logo');
  if (logoUrl && !flags.disableBusinessLogo) {
    if (!logo) {
      const img = doc.createElement('img');
      img.src = logoUrl;
      img.alt = '';
      img.className = 'logo';
      brand.prepend(img);
    }
  } else {
    logo?.remove();
  }
}

/** The home page's header (pages/home.tsx): title (or the shop's name), description, button. */
function applyHeader(doc: Document, header: DesignDraft['header']) {
  const hero = doc.querySelector('main > section.hero');
  if (!hero) return; // another page of the storefront: it has no header
  const shopName = doc.querySelector('.site-header .brand > span')?.textContent ?? '';
  const description = orNull(header.description);
  const wanted: { selector: string; make: () => HTMLElement; text: string | null }[] = [
    {
      selector: ':scope > h1',
      make: () => doc.createElement('h1'),
      text: header.disableTitle ? null : (orNull(header.title) ?? shopName),
    },
    {
      selector: ':scope > p.text',
      make: () => Object.assign(doc.createElement('p'), { className: 'text' }),
      text: header.disableDescription ? null : description,
    },
    {
      selector: ':scope > a.button',
      make: () => Object.assign(doc.createElement('a'), { className: 'button', href: '#products' }),
      text: header.disableButton ? null : (orNull(header.buttonText) ?? strings.design.seeProducts),
    },
  ];
  // Each in its place: before the statistics line, in this order.
  const after = hero.querySelector(':scope > p.stats');
  for (const part of wanted) {
    const existing = hero.querySelector<HTMLElement>(part.selector);
    if (part.text === null) {
      existing?.remove();
      continue;
    }
    const element = existing ?? part.make();
    element.textContent = part.text;
    hero.insertBefore(element, after);
  }
}

function applyDraft(frame: HTMLIFrameElement | null, draft: DesignDraft, saved: Flags, logoUrl: string | null) {
  const doc = frame?.contentDocument;
  // Only a storefront page (not the blank document before the first load, not an error without the layout).
  if (!doc?.head || !doc.querySelector('.site-header')) return;
  applyColours(doc, draft.flags, saved);
  applyFlags(doc, draft.flags, logoUrl);
  applyHeader(doc, draft.header);
}

export function StorefrontPreview(props: {
  subdomain: string | undefined;
  /** Bumped after a save: the frame is made anew and loads the saved storefront. */
  version: number;
  onReload: () => void;
  draft: DesignDraft;
  saved: Flags;
  logoUrl: string | null;
  /** Labels of unsaved changes the preview shows, and of those it cannot. */
  changes: { shown: string[]; notShown: string[] };
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const { draft, saved, logoUrl } = props;
  const apply = useCallback(() => applyDraft(frame.current, draft, saved, logoUrl), [draft, saved, logoUrl]);
  useEffect(apply, [apply]);
  const { shown, notShown } = props.changes;
  return (
    <section className="card stack settings-preview" aria-labelledby="design-preview-title">
      <div className="row">
        <h2 id="design-preview-title" className="settings-section-title grow">
          {shown.length > 0 ? strings.design.previewUnsavedChangesShown : strings.design.preview}
        </h2>
        <button type="button" className="btn" onClick={props.onReload}>
          {strings.design.reloadPreview}
        </button>
        {props.subdomain ? (
          <a className="btn" href={`/s/${props.subdomain}/`} target="_blank" rel="noreferrer">
            {strings.design.openStorefront}
          </a>
        ) : null}
      </div>
      {notShown.length > 0 ? (
        <p className="muted small settings-section-description">
          {strings.design.shownAfterSaving(notShown.join(', '))}
        </p>
      ) : null}
      {props.subdomain ? (
        <iframe
          key={props.version}
          ref={frame}
          title={strings.design.storefrontPreview}
          src={`/s/${props.subdomain}/`}
          onLoad={apply}
        />
      ) : (
        <Loading label={strings.design.loadingThePreview} />
      )}
    </section>
  );
}
