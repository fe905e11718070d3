import type { ComponentChildren } from 'preact';
import type { Lang } from '../../../i18n/lang.js';

/**
 * The pieces every mail's HTML is built from. Mail clients drop `<style>` blocks and scripts and
 * many ignore layout CSS, so styles are inline, the layout is one column of blocks, and every
 * link is also printed as its address, readable when a client shows no button. JSX escapes
 * every text and attribute: user text (titles, names, replies, keys) is passed as children,
 * never as markup.
 */

const font = "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const mono = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace";
const ink = '#1f2937';
const muted = '#6b7280';
const line = '#e5e7eb';

export function MailLayout(props: { lang: Lang; shopName: string; title: string; children: ComponentChildren }) {
  return (
    <html lang={props.lang.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
      </head>
      <body style={{ margin: '0', padding: '0', background: '#f3f4f6', color: ink, fontFamily: font }}>
        <div style={{ maxWidth: '600px', margin: '0 auto', padding: '24px 12px' }}>
          <div
            style={{
              background: '#ffffff',
              border: `1px solid ${line}`,
              borderRadius: '8px',
              padding: '24px',
              fontSize: '15px',
              lineHeight: '1.5',
            }}
          >
            <div
              style={{
                fontSize: '20px',
                fontWeight: 'bold',
                paddingBottom: '12px',
                marginBottom: '16px',
                borderBottom: `1px solid ${line}`,
              }}
            >
              {props.shopName}
            </div>
            {props.children}
          </div>
          <p style={{ color: muted, fontSize: '12px', textAlign: 'center', margin: '12px 0 0' }}>
            {props.lang.t('mail.sentFor', { shop: props.shopName })}
          </p>
        </div>
      </body>
    </html>
  );
}

export function Heading(props: { children: ComponentChildren }) {
  return <h1 style={{ fontSize: '18px', margin: '0 0 12px' }}>{props.children}</h1>;
}

export function Paragraph(props: { children: ComponentChildren; muted?: boolean }) {
  return (
    <p style={{ margin: '0 0 12px', ...(props.muted ? { color: muted, fontSize: '13px' } : {}) }}>{props.children}</p>
  );
}

/** A button-like link, with its address printed under it for clients that show no button. */
export function ActionLink(props: { lang: Lang; href: string; label: string }) {
  return (
    <div style={{ margin: '16px 0' }}>
      <a
        href={props.href}
        style={{
          display: 'inline-block',
          background: ink,
          color: '#ffffff',
          textDecoration: 'none',
          padding: '10px 18px',
          borderRadius: '6px',
          fontWeight: 'bold',
        }}
      >
        {props.label}
      </a>
      <div style={{ color: muted, fontSize: '12px', marginTop: '8px', wordBreak: 'break-all' }}>
        {props.lang.t('mail.orOpen')} <a href={props.href}>{props.href}</a>
      </div>
    </div>
  );
}

/** A text kept exactly as written: a key, a service text, a reply. Its own block, so it copies alone. */
export function Verbatim(props: { children: string }) {
  return (
    <pre
      style={{
        fontFamily: mono,
        fontSize: '14px',
        background: '#f9fafb',
        border: `1px solid ${line}`,
        borderRadius: '4px',
        padding: '8px 10px',
        margin: '0 0 8px',
        whiteSpace: 'pre-wrap',
        wordBreak: 'break-all',
      }}
    >
      {props.children}
    </pre>
  );
}

/** Someone's words (a seller's note, an answer), line breaks kept, set off by a bar. */
export function Quote(props: { children: string }) {
  return (
    <p
      style={{
        margin: '0 0 12px',
        padding: '4px 0 4px 12px',
        borderLeft: `3px solid ${line}`,
        whiteSpace: 'pre-wrap',
      }}
    >
      {props.children}
    </p>
  );
}

/** A labelled block of the mail (payment, items, goods), set off by a rule. */
export function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <div style={{ borderTop: `1px solid ${line}`, paddingTop: '12px', marginTop: '16px' }}>
      <div style={{ fontWeight: 'bold', marginBottom: '8px' }}>{props.title}</div>
      {props.children}
    </div>
  );
}

/** One line of a list of amounts: the label left, the amount right; `strong` for the total, ruled off above it. */
export function AmountLine(props: { label: string; amount: string; strong?: boolean }) {
  const total = props.strong ? { borderTop: `1px solid ${line}`, paddingTop: '6px', margin: '6px 0 16px' } : {};
  return (
    <div style={{ display: 'flex', justifyContent: 'space-between', gap: '12px', margin: '0 0 4px', ...total }}>
      <span style={props.strong ? { fontWeight: 'bold' } : {}}>{props.label}</span>
      <span style={{ whiteSpace: 'nowrap', ...(props.strong ? { fontWeight: 'bold' } : {}) }}>{props.amount}</span>
    </div>
  );
}
