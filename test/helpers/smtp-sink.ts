import type { TestContext } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { onEnd } from './build.js';

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  /** The HTML alternative, when the message has one. */
  html: string | null;
}

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** While true, every recipient is refused with a temporary 450. */
  rejecting: boolean;
}

/** A real SMTP server on a random local port (no TLS, no auth) that keeps what it receives. */
export async function smtpSink(t: TestContext): Promise<SmtpSink> {
  const sink: SmtpSink = { url: '', received: [], rejecting: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!sink.rejecting) return callback();
      callback(Object.assign(new Error(`Mailbox busy: ${address.address}`), { responseCode: 450 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mailFrom = session.envelope.mailFrom;
        sink.received.push({
          envelopeFrom: mailFrom ? mailFrom.address : '',
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          ...parseMessage(Buffer.concat(chunks).toString('latin1')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  sink.url = `smtp://127.0.0.1:${port}`;
  // Closed after the apps built later in the test (onEnd runs last in, first out): their pooled
  // SMTP connections are closed by then, and the server would otherwise wait 30 s for them.
  onEnd(t, () => new Promise<void>((resolve) => server.close(() => resolve())));
  return sink;
}

/**
 * Just enough MIME for nodemailer's messages: a single text/plain part, or multipart/alternative
 * with a text/plain and a text/html part. Lines may end in CRLF (SMTP) or LF (the .eml files).
 */
export function parseMessage(raw: string): Omit<ReceivedMail, 'envelopeFrom' | 'envelopeTo'> {
  const message = parseEntity(raw.replace(/\r?\n/g, '\r\n'));
  const parts = multipartParts(message);
  const text = parts.find((p) => p.type === 'text/plain') ?? message;
  const html = parts.find((p) => p.type === 'text/html');
  return {
    from: decodeWords(message.headers.get('from') ?? ''),
    to: message.headers.get('to') ?? '',
    subject: decodeWords(message.headers.get('subject') ?? ''),
    text: text.body,
    html: html ? html.body : null,
  };
}

interface Entity {
  headers: Map<string, string>;
  /** The media type, lower case, without parameters. */
  type: string;
  /** The decoded body (UTF-8, LF line ends); the raw body for a multipart entity. */
  body: string;
  raw: string;
}

function parseEntity(raw: string): Entity {
  const split = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = raw.slice(split + 4);
  const type = (headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('multipart/')) return { headers, type, body, raw: body };
  const encoding = headers.get('content-transfer-encoding') ?? '7bit';
  const bytes =
    encoding === 'quoted-printable'
      ? qpBytes(body.replace(/=\r\n/g, ''))
      : encoding === 'base64'
        ? Buffer.from(body, 'base64')
        : Buffer.from(body, 'latin1');
  return { headers, type, body: bytes.toString('utf8').replace(/\r\n/g, '\n'), raw: body };
}

function multipartParts(entity: Entity): Entity[] {
  if (!entity.type.startsWith('multipart/')) return [];
  const boundary = /boundary="?([^";]+)"?/i.exec(entity.headers.get('content-type') ?? '')?.[1];
  if (!boundary) throw new Error('a multipart message without a boundary');
  const [, ...rest] = entity.raw.split(`--${boundary}`);
  return rest
    .filter((chunk) => !chunk.startsWith('--'))
    .map((chunk) => parseEntity(chunk.replace(/^\r\n/, '').replace(/\r\n$/, '')))
    .flatMap((part) => (part.type.startsWith('multipart/') ? multipartParts(part) : [part]));
}

function qpBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=') {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i));
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), adjacent ones joined. */
function decodeWords(value: string): string {
  const joined = value.replace(/\?=\s+=\?/g, '?==?');
  const parts: Buffer[] = [];
  let rest = joined;
  const word = /=\?utf-8\?([qb])\?([^?]*)\?=/i;
  for (let match = word.exec(rest); match; match = word.exec(rest)) {
    parts.push(Buffer.from(rest.slice(0, match.index), 'latin1'));
    const [, kind, data = ''] = match;
    parts.push(kind?.toLowerCase() === 'b' ? Buffer.from(data, 'base64') : qpBytes(data.replace(/_/g, ' ')));
    rest = rest.slice(match.index + match[0].length);
  }
  parts.push(Buffer.from(rest, 'latin1'));
  return Buffer.concat(parts).toString('utf8');
}
