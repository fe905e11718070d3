import { Heading, MailLayout, Paragraph } from './layout.js';
import { oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface SignInCodeMailInput {
  shopName: string;
  /** The one-time code. Never in the subject: subjects are logged and shown on locked screens. */
  code: string;
  /** How long the code is valid. */
  minutes: number;
}

/** The one-time code that signs a buyer in to the shop's customer area. */
export function signInCodeMail(input: SignInCodeMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const subject = `Your sign-in code for ${shopName}`;
  const validity = `The code is valid for ${input.minutes} minute${input.minutes === 1 ? '' : 's'} and works once.`;
  const ignore = 'If you did not ask to sign in, ignore this e-mail: nobody can sign in without the code.';
  const text = [`Your code to sign in to ${shopName}:`, '', input.code, '', validity, '', ignore];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Your sign-in code</Heading>
      <Paragraph>Enter this code to sign in to {shopName}:</Paragraph>
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
