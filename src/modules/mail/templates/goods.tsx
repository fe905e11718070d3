import { Paragraph, Verbatim } from './layout.js';
import { normaliseNewlines, oneLine } from './render.js';

/** A part of an order as mail shows what it delivered. */
export interface DeliveredPart {
  title: string;
  quantity: number;
  deliverables: string[];
}

const NOTHING = '(nothing to deliver)';

/**
 * The goods as text: each part's title and quantity, then its items one per line and unindented,
 * so a buyer can copy a key without stray spaces; a blank line after each part.
 */
export function goodsLines(parts: DeliveredPart[]): string[] {
  return parts.flatMap((part) => [
    `${oneLine(part.title)} × ${part.quantity}`,
    ...(part.deliverables.length > 0 ? part.deliverables.map(normaliseNewlines) : [NOTHING]),
    '',
  ]);
}

/** The goods as HTML: each item in its own block, so it copies alone. */
export function Goods(props: { parts: DeliveredPart[] }) {
  return (
    <>
      {props.parts.map((part) => (
        <div style={{ margin: '0 0 12px' }}>
          <div style={{ fontWeight: 'bold', margin: '0 0 4px' }}>
            {oneLine(part.title)} × {part.quantity}
          </div>
          {part.deliverables.length > 0 ? (
            part.deliverables.map((item) => <Verbatim>{normaliseNewlines(item)}</Verbatim>)
          ) : (
            <Paragraph muted>{NOTHING}</Paragraph>
          )}
        </div>
      ))}
    </>
  );
}
