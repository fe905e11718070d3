import { Paragraph, Verbatim } from './layout.js';
import { normaliseNewlines, oneLine } from './render.js';

/** A part of an order as mail shows what it delivered. */
export interface DeliveredPart {
  title: string;
  quantity: number;
  deliverables: string[];
  /** A file product's files: downloaded from the order page, whose links are always fresh. */
  files?: { name: string; size: number }[];
}

const NOTHING = '(nothing to deliver)';
const DOWNLOAD_HINT = 'Download from your order page (the link below):';

/** `1536000` → `1.5 MB`, as file managers count (powers of 1,000). */
export function sizeText(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

const fileLine = (file: { name: string; size: number }) => `${oneLine(file.name)} (${sizeText(file.size)})`;

/**
 * The goods as text: each part's title and quantity, then its items one per line and unindented,
 * so a buyer can copy a key without stray spaces; a blank line after each part.
 */
export function goodsLines(parts: DeliveredPart[]): string[] {
  return parts.flatMap((part) => {
    const files = part.files ?? [];
    return [
      `${oneLine(part.title)} × ${part.quantity}`,
      ...(files.length > 0 ? [DOWNLOAD_HINT, ...files.map((f) => `  ${fileLine(f)}`)] : []),
      ...(part.deliverables.length > 0 ? part.deliverables.map(normaliseNewlines) : files.length > 0 ? [] : [NOTHING]),
      '',
    ];
  });
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
          {part.files && part.files.length > 0 ? (
            <>
              <Paragraph muted>{DOWNLOAD_HINT}</Paragraph>
              <ul style={{ margin: '0 0 8px', paddingLeft: '20px' }}>
                {part.files.map((file) => (
                  <li>{fileLine(file)}</li>
                ))}
              </ul>
            </>
          ) : null}
          {part.deliverables.length > 0 ? (
            part.deliverables.map((item) => <Verbatim>{normaliseNewlines(item)}</Verbatim>)
          ) : part.files && part.files.length > 0 ? null : (
            <Paragraph muted>{NOTHING}</Paragraph>
          )}
        </div>
      ))}
    </>
  );
}
