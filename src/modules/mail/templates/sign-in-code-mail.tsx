import type { Lang } from '../../../i18n/lang.js';
import { Heading, MailLayout, Paragraph } from './layout.js';
import { oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface SignInCodeMailInput {
  /** The language of the page the code was asked from. */
  lang: Lang;
  shopName: string;
  /** The one-time code. Never in the subject: subjects are logged and shown on locked screens. */
  code: string;
  /** How long the code is valid. */
  minutes: number;
}

/** The one-time code that signs a buyer in to the shop's customer area. */
export function signInCodeMail(input: SignInCodeMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const subject = t('mail.signIn.subject', { shop: shopName });
  const validity = t('mail.signIn.validity', { minutes: input.minutes });
  const ignore = t('mail.signIn.ignore');
  const text = [t('mail.signIn.text', { shop: shopName }), '', input.code, '', validity, '', ignore];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.signIn.heading')}</Heading>
      <Paragraph>{t('mail.signIn.enter', { shop: shopName })}</Paragraph>
      <div
        style={{
          fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace",
          fontSize: '32px',
          fontWeight: 'bold',
          letterSpacing: '6px',
          textAlign: 'center',
          background: '#f3f4f6',
          borderRadius: '6px',
          padding: '16px',
          margin: '16px 0',
        }}
      >
        {input.code}
      </div>
      <Paragraph>{validity}</Paragraph>
      <Paragraph muted>{ignore}</Paragraph>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
