import sharp from 'sharp';
import type { DemoFile } from './demo-files.js';

/**
 * The demo products' cover images, drawn on the spot (nothing binary is committed): a gradient
 * of the product's own colour with a large glyph of what it sells, rendered from SVG to PNG by
 * sharp. No text, so no font is needed and the image reads in any language.
 */

type Glyph = 'key' | 'planet' | 'shield' | 'wrench' | 'brush' | 'book' | 'note';

/** The glyph's shapes in a 200×200 box, white on the gradient. */
const GLYPHS: Record<Glyph, string> = {
  key:
    '<circle cx="62" cy="100" r="38" fill="none" stroke="#fff" stroke-width="18"/>' +
    '<rect x="96" y="91" width="86" height="18" rx="4" fill="#fff"/>' +
    '<rect x="150" y="100" width="14" height="32" rx="3" fill="#fff"/><rect x="170" y="100" width="12" height="24" rx="3" fill="#fff"/>',
  planet:
    '<circle cx="100" cy="100" r="52" fill="#fff"/>' +
    '<ellipse cx="100" cy="104" rx="92" ry="24" fill="none" stroke="#fff" stroke-width="10" transform="rotate(-18 100 104)"/>',
  shield: '<path d="M100 22 L164 46 V98 C164 142 136 168 100 182 C64 168 36 142 36 98 V46 Z" fill="#fff"/>',
  wrench:
    '<path d="M146 30 a40 40 0 0 0 -48 52 L34 146 a16 16 0 0 0 22 22 L120 104 a40 40 0 0 0 52 -48 l-24 24 -22 -4 -4 -22 Z" fill="#fff"/>',
  brush:
    '<path d="M150 26 L176 52 L104 124 L78 98 Z" fill="#fff"/>' +
    '<path d="M72 104 L98 130 C92 164 62 176 30 174 C44 160 40 138 50 124 C56 114 64 108 72 104 Z" fill="#fff"/>',
  book:
    '<path d="M30 48 C60 38 86 42 100 56 V170 C86 156 60 152 30 162 Z" fill="#fff"/>' +
    '<path d="M170 48 C140 38 114 42 100 56 V170 C114 156 140 152 170 162 Z" fill="#fff" opacity="0.8"/>',
  note:
    '<rect x="46" y="26" width="108" height="148" rx="12" fill="#fff"/>' +
    '<rect x="66" y="60" width="68" height="9" rx="4" fill="#000" opacity="0.25"/>' +
    '<rect x="66" y="84" width="68" height="9" rx="4" fill="#000" opacity="0.25"/>' +
    '<rect x="66" y="108" width="44" height="9" rx="4" fill="#000" opacity="0.25"/>',
};

/** A cover: 1200×750 (16:10, the cards' shape), hues from `hue` to `hue + 50`. */
export async function demoCover(name: string, hue: number, glyph: Glyph): Promise<DemoFile> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="750" viewBox="0 0 1200 750">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="hsl(${hue} 70% 46%)"/>
      <stop offset="1" stop-color="hsl(${(hue + 50) % 360} 65% 28%)"/>
    </linearGradient>
    <radialGradient id="glow" cx="0.78" cy="0.2" r="0.6">
      <stop offset="0" stop-color="#fff" stop-opacity="0.35"/>
      <stop offset="1" stop-color="#fff" stop-opacity="0"/>
    </radialGradient>
  </defs>
  <rect width="1200" height="750" fill="url(#bg)"/>
  <rect width="1200" height="750" fill="url(#glow)"/>
  <circle cx="180" cy="640" r="220" fill="#fff" opacity="0.06"/>
  <circle cx="1080" cy="120" r="140" fill="#fff" opacity="0.08"/>
  <g transform="translate(420 195) scale(1.8)" opacity="0.92">${GLYPHS[glyph]}</g>
</svg>`;
  const bytes = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
  return { name: `${name}.png`, contentType: 'image/png', bytes };
}

/** Each demo product's cover: its colour and glyph. */
export const DEMO_COVERS = {
  starfall: { hue: 250, glyph: 'planet' },
  pixel: { hue: 140, glyph: 'key' },
  vpn: { hue: 200, glyph: 'shield' },
  setup: { hue: 25, glyph: 'wrench' },
  avatar: { hue: 320, glyph: 'brush' },
  ebook: { hue: 45, glyph: 'book' },
  notes: { hue: 170, glyph: 'note' },
} as const satisfies Record<string, { hue: number; glyph: Glyph }>;
