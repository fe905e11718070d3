import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultDesign } from '../../src/modules/design/schema.js';
import { contrast, fillFor, parseHex, READABLE, readableOn } from '../../web/storefront/theme.js';

const ratio = (a: string, b: string) => contrast(parseHex(a)!, parseHex(b)!);

test("the storefront's link and button colours read at AA on any design, keeping a valid brand colour as it is", () => {
  const d = defaultDesign.design;
  // The default dark design's indigo is 4.2:1 as a link on its background, 4.47:1 under white.
  assert.ok(ratio(d.primaryColor, d.backgroundColor) < READABLE);
  const link = readableOn(d.primaryColor, [d.backgroundColor, d.secondaryColor])!;
  assert.ok(ratio(link, d.backgroundColor) >= READABLE && ratio(link, d.secondaryColor) >= READABLE, link);
  const fill = fillFor(d.primaryColor)!;
  assert.ok(ratio(fill.text, fill.fill) >= READABLE, JSON.stringify(fill));

  // A colour that already reads is kept.
  assert.equal(readableOn('#1d4ed8', ['#ffffff']), '#1d4ed8');
  assert.deepEqual(fillFor('#1d4ed8'), { fill: '#1d4ed8', text: '#ffffff' });
  assert.deepEqual(fillFor('#facc15'), { fill: '#facc15', text: '#111111' }, 'ink on yellow');

  // Whatever the owner picks, the results read.
  for (let i = 0; i < 500; i++) {
    const colour = `#${(((i * 2654435761) >>> 0) % 0xffffff).toString(16).padStart(6, '0')}`;
    const background = `#${(((i * 40503 + 7) >>> 0) % 0xffffff).toString(16).padStart(6, '0')}`;
    const l = readableOn(colour, [background])!;
    assert.ok(ratio(l, background) >= READABLE, `${colour} on ${background}: ${l}`);
    const f = fillFor(colour)!;
    assert.ok(ratio(f.text, f.fill) >= READABLE, `${colour}: ${JSON.stringify(f)}`);
  }
  assert.equal(readableOn('red', ['#ffffff']), undefined, 'not a colour: nothing derived');
});
