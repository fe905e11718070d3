import type { Lang } from '../../../i18n/lang.js';
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

const fileLine = (lang: Lang, file: { name: string; size: number }) =>
  `${oneLine(file.name)} (${lang.fileSize(file.size)})`;

/**
 * The goods as text: each part's title and quantity, then its items one per line and unindented,
 * so a buyer can copy a key without stray spaces; a blank line after each part.
 */
export function goodsLines(lang: Lang, parts: DeliveredPart[]): string[] {
  return parts.flatMap((part) => {
    const files = part.files ?? [];
    return [
      `${oneLine(part.title)} × ${part.quantity}`,
      ...(files.length > 0 ? [lang.t('mail.downloadHint'), ...files.map((f) => `  ${fileLine(lang, f)}`)] : []),
      ...(part.deliverables.length > 0
        ? part.deliverables.map(normaliseNewlines)
        : files.length > 0
          ? []
          : [lang.t('mail.nothing')]),
      '',
    ];
  });
}

/** The goods as HTML: each item in its own block, so it copies alone. */
export function Goods(props: { lang: Lang; parts: DeliveredPart[] }) {
  const { lang } = props;
  return (
    <>
      {props.parts.map((part) => (
        <div style={{ margin: '0 0 12px' }}>
          <div style={{ fontWeight: 'bold', margin: '0 0 4px' }}>
            {oneLine(part.title)} × {part.quantity}
          </div>
          {part.files && part.files.length > 0 ? (
            <>
              <Paragraph muted>{lang.t('mail.downloadHint')}</Paragraph>
              <ul style={{ margin: '0 0 8px', paddingLeft: '20px' }}>
                {part.files.map((file) => (
                  <li>{fileLine(lang, file)}</li>
                ))}
              </ul>
            </>
          ) : null}
          {part.deliverables.length > 0 ? (
            part.deliverables.map((item) => <Verbatim>{normaliseNewlines(item)}</Verbatim>)
          ) : part.files && part.files.length > 0 ? null : (
            <Paragraph muted>{lang.t('mail.nothing')}</Paragraph>
          )}
        </div>
      ))}
    </>
  );
}
