import type { ComponentChildren } from 'preact';
import { imageVariants } from '../../src/http/uploads.js';
import { assetUrl } from './assets.js';
import { stars } from './format.js';
import { useLang } from './i18n.js';

/** Pieces several pages share. */

export interface FeedbackView {
  id: number;
  rating: number;
  comment: string | null;
  answer: string | null;
  products: { id: number; title: string }[];
  createdAt: string;
}

export function Rating({ rating, count }: { rating: number | null; count: number }) {
  const { t } = useLang();
  if (rating === null || count === 0) return <span class="muted">{t('rating.none')}</span>;
  return (
    <span class="rating">
      <span aria-hidden="true">{stars(rating)}</span> <span>{t('rating.summary', { rating, count })}</span>
    </span>
  );
}

export function FeedbackList({ feedbacks }: { feedbacks: FeedbackView[] }) {
  const lang = useLang();
  const { t } = lang;
  if (feedbacks.length === 0) return <p class="muted">{t('feedback.none')}</p>;
  return (
    <ul class="feedbacks">
      {feedbacks.map((f) => (
        <li key={f.id} class="card">
          <p>
            <span class="stars" role="img" aria-label={t('rating.stars', { rating: f.rating })}>
              {stars(f.rating)}
            </span>{' '}
            <time datetime={f.createdAt} class="muted">
              {lang.day(f.createdAt)}
            </time>
          </p>
          {f.comment ? <p class="text">{f.comment}</p> : null}
          {f.products.length > 0 ? (
            <p class="muted small">{t('feedback.bought', { products: lang.list(f.products.map((p) => p.title)) })}</p>
          ) : null}
          {f.answer ? (
            <blockquote class="answer">
              <strong>{t('feedback.answer')}</strong> <span class="text">{f.answer}</span>
            </blockquote>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** A form field with its label, hint and the error the server found in it (linked for screen readers). */
export function Field(props: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** Errors that belong to no field, at the top of a form. */
export function FormErrors({ errors, message }: { errors: string[]; message?: string | undefined }) {
  if (errors.length === 0 && !message) return null;
  return (
    <div class="notice error" role="alert">
      {message ? <p>{message}</p> : null}
      {errors.length > 0 ? (
        <ul>
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      /** The ALTCHA widget (the `altcha` package), a custom element defined by its script. */
      'altcha-widget': {
        challenge: string;
        name: string;
        auto?: 'off' | 'onfocus' | 'onload' | 'onsubmit';
        language?: string;
        'data-worker': string;
        id?: string;
        'aria-describedby'?: string;
      };
    }
  }
}

/**
 * The proof-of-work challenge of a form (src/modules/challenge), shown when the shop asks this
 * client for one: the ALTCHA widget starts solving as soon as the buyer is in the form (a second or
 * two, in a worker) and puts the solution in the form as `altcha`. Without JavaScript it cannot be
 * solved, and the page says so. `error` is what the server said of the last try.
 */
export function ChallengeField({ shopId, error }: { shopId: number; error?: string | undefined }) {
  const { t, locale } = useLang();
  return (
    <div class={error ? 'field challenge invalid' : 'field challenge'}>
      <link rel="stylesheet" href={assetUrl('altcha.css')} />
      <altcha-widget
        id="altcha"
        challenge={`/v2/public/shops/${shopId}/challenge`}
        name="altcha"
        auto="onfocus"
        language={locale === 'en' ? undefined : locale}
        data-worker={assetUrl('altcha-pbkdf2.js')}
        aria-describedby="altcha-hint"
      />
      <p class="hint" id="altcha-hint">
        {t('challenge.hint')}
      </p>
      <noscript>
        <p class="error">{t('challenge.noscript')}</p>
      </noscript>
      {error ? (
        <p class="error" id="altcha-error" role="alert">
          {error}
        </p>
      ) : null}
      {locale === 'de' ? <script type="module" src={assetUrl('altcha-de.js')} /> : null}
      <script type="module" src={assetUrl('altcha.js')} />
      <script type="module" src={assetUrl('challenge.js')} />
    </div>
  );
}

/** How wide a product card's image is shown: the whole width of a phone, a grid column beside. */
export const CARD_SIZES = '(max-width: 600px) 50vw, 360px';

/**
 * An image the shop uploaded, in the size and format the browser wants: AVIF, then WebP, each in
 * the widths the server makes (`srcset`, chosen by `sizes`), the upload itself for any other
 * browser. Loaded lazily unless it is the page's main image (`eager`); any other URL is a plain
 * `<img>`.
 */
export function Picture(props: { src: string; alt: string; sizes: string; eager?: boolean; class?: string }) {
  const variants = imageVariants(props.src);
  const img = (
    <img
      src={props.src}
      alt={props.alt}
      class={props.class}
      loading={props.eager ? undefined : 'lazy'}
      decoding="async"
      fetchpriority={props.eager ? 'high' : undefined}
    />
  );
  if (!variants) return img;
  return (
    <picture>
      <source type="image/avif" srcset={variants.avif} sizes={props.sizes} />
      <source type="image/webp" srcset={variants.webp} sizes={props.sizes} />
      {img}
    </picture>
  );
}

/** `Game Key` → `GK`; `Ω` → `Ω`: the first letters of the first two words. */
function initials(title: string): string {
  const words = title.match(/[\p{L}\p{N}]+/gu) ?? [];
  return words
    .slice(0, 2)
    .map((w) => [...w][0]!.toUpperCase())
    .join('');
}

/** A hue from the title, the same for the same title: cards without an image tell apart at a glance. */
function hueOf(title: string): number {
  let h = 0;
  for (const c of title) h = (h * 31 + c.codePointAt(0)!) % 360;
  return h;
}

/**
 * What a product or group without an image shows in its place: its initials on a soft gradient
 * of its own hue, blended with the shop's colours (decorative: the title is beside it).
 */
export function Placeholder({ title }: { title: string }) {
  return (
    <div class="placeholder" style={{ '--hue': String(hueOf(title)) }} aria-hidden="true">
      <span>{initials(title)}</span>
    </div>
  );
}
