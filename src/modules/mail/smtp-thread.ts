import { parentPort, workerData } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { SmtpAnswer, SmtpMessage, SmtpRequest, SmtpSetup } from './transport.js';

// The SMTP pool's thread (see smtpTransport in transport.ts): sends what the main thread posts,
// `connections` at once over as many pooled connections, and posts back the server's answer or
// the error; `cancel` hands back those not started.

const SECOND = 1000;
const { url, connections } = workerData as SmtpSetup;
const port = parentPort!;
// Options in the URL's query (e.g. ?ignoreTLS=true, ?tls.rejectUnauthorized=false) win over
// these. The pool is built directly: `createTransport({ url, … })` reads the URL alone and drops
// the other options, the timeouts included.
const pool = nodemailer.createTransport(
  new SMTPPool({
    url,
    pool: true,
    maxConnections: connections,
    connectionTimeout: 15 * SECOND,
    greetingTimeout: 15 * SECOND,
    socketTimeout: 30 * SECOND,
  }),
);

// Messages wait here until a connection is free: those not started yet can be handed back (cancel).
const queue: { id: number; message: SmtpMessage }[] = [];
let sending = 0;

function post(answer: SmtpAnswer): void {
  port.postMessage(answer);
}

function pump(): void {
  while (sending < connections && queue.length > 0) {
    const { id, message } = queue.shift()!;
    sending++;
    pool
      .sendMail(message)
      .then(
        (info: { response?: unknown }) =>
          post({ id, response: typeof info.response === 'string' ? info.response.slice(0, 500) : null }),
        (err: unknown) => post({ id, error: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => {
        sending--;
        pump();
      });
  }
}

port.on('message', (request: SmtpRequest) => {
  if ('id' in request) {
    queue.push(request);
    return pump();
  }
  for (const { id } of queue.splice(0)) post({ id, cancelled: true });
  if (request.kind === 'close') {
    pool.close();
    port.close();
  }
});
