/**
 * Readable colours from a shop's design (WCAG 2 contrast): the owner picks the brand colour, and
 * the storefront derives from it a link colour that reads on the page and card backgrounds, and a
 * text colour for what sits on it (a primary button). The default dark design's indigo, say, is
 * 4.2:1 on its background as a link and 4.5:1 under white text: these make it 4.5:1 at least.
 */

type Rgb = [number, number, number];

const HEX = /^#([0-9a-f]{6})$/i;

export function parseHex(hex: string): Rgb | undefined {
  const m = HEX.exec(hex);
  if (!m) return undefined;
  const n = Number.parseInt(m[1]!, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const toHex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

function luminance([r, g, b]: Rgb): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** The WCAG contrast ratio of two colours, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Text contrast AA asks of normal-size text. */
export const READABLE = 4.5;

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [17, 17, 17];

/**
 * A fill for `colour` that text reads on (a primary button): `colour` itself when white or ink
 * text reaches AA on it, else `colour` darkened (under white text) or lightened (under ink),
 * whichever needs the smaller change; `text` is that text colour.
 */
export function fillFor(colour: string): { fill: string; text: string } | undefined {
  const c = parseHex(colour);
  if (!c) return undefined;
  const candidates: [Rgb, Rgb][] = [
    [WHITE, [0, 0, 0]],
    [INK, WHITE],
  ];
  for (let step = 0; step <= 20; step++) {
    const t = step / 20;
    for (const [text, toward] of candidates) {
      const mixed = c.map((v, i) => Math.round(v + (toward[i]! - v) * t)) as Rgb;
      if (contrast(text, mixed) >= READABLE) return { fill: toHex(mixed), text: toHex(text) };
    }
  }
  return { fill: '#000000', text: '#ffffff' };
}

/**
 * `colour` itself when it reads on every one of `backgrounds`, else `colour` mixed towards white
 * or black, in steps of 5 %, whichever reaches AA first: the same hue, lighter or darker. Against
 * backgrounds no mix reads on (one very light and one very dark), the better of white and black.
 */
export function readableOn(colour: string, backgrounds: string[]): string | undefined {
  const c = parseHex(colour);
  const bgs = backgrounds.map(parseHex).filter((b): b is Rgb => b !== undefined);
  if (!c || bgs.length === 0) return undefined;
  const worst = (x: Rgb) => Math.min(...bgs.map((b) => contrast(x, b)));
  const ends: Rgb[] = [WHITE, [0, 0, 0]];
  for (let step = 0; step <= 20; step++) {
    const t = step / 20;
    for (const toward of ends) {
      const mixed = c.map((v, i) => Math.round(v + (toward[i]! - v) * t)) as Rgb;
      if (worst(mixed) >= READABLE) return toHex(mixed);
    }
  }
  return toHex(worst(WHITE) >= worst([0, 0, 0]) ? WHITE : [0, 0, 0]);
}
