import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { MailRow } from './mail.table.js';

/** Where mail goes without `SMTP_URL`: one `.eml` file per message under `DATA_DIR/mail`. */
export const MAIL_DIR = 'mail';

/**
 * Sends messages, up to its own number at once; `send` answers what the transport said (the SMTP
 * server's reply, or the file written), or rejects with `SendCancelled` for a message that
 * `cancelQueued` took back before it started.
 */
export interface MailTransport {
  send(row: MailRow, message: SendMailOptions): Promise<string | null>;
  /** Hands back the messages not started yet (a stopping worker). */
  cancelQueued(): void;
  close(): void;
}

/** A message taken back before it started: nothing of it reached the server. */
export class SendCancelled extends Error {}

/** What the SMTP thread (smtp-thread.ts) is started with, is asked and answers. */
export interface SmtpSetup {
  url: string;
  connections: number;
}
/** A message as it crosses to the thread: strings only, so it clones as is. */
export type SmtpMessage = Pick<SendMailOptions, 'from' | 'to' | 'subject' | 'text' | 'html' | 'messageId'>;
export type SmtpRequest = { id: number; message: SmtpMessage } | { kind: 'cancel' | 'close' };
export type SmtpAnswer =
  | { id: number; response: string | null }
  | { id: number; error: string }
  | { id: number; cancelled: true };

/**
 * SMTP when `smtpUrl` is set: a pool of up to `connections` connections, each kept open for up
 * to 100 messages, rather than a connection (TCP, TLS, EHLO, AUTH) per message, on a thread of
 * its own. Why the thread: one message takes five or six exchanges with the server, and each
 * answer waits for a turn of the event loop; under load a turn runs every request that arrived
 * meanwhile, each with its synchronous SQLite work (at c=50 checkouts, most of a second), so on
 * the main thread each connection sent a mail every few seconds (bench MAIL: 0.02× the checkout
 * rate with five connections). On its thread the pool answers the server at once, and the main
 * thread pays one message each way per mail. When the thread fails, the failure is logged, the
 * sends waiting on it fail (and are retried with backoff), and the next send starts a new thread.
 */
export function smtpTransport(url: string, connections: number, log: (err: Error) => void): MailTransport {
  let thread: Worker | null = null;
  let nextId = 1;
  const waiting = new Map<number, { resolve(response: string | null): void; reject(err: Error): void }>();
  let closed = false;
  const start = (): Worker => {
    const entry = new URL(import.meta.url.endsWith('.ts') ? './smtp-thread.ts' : './smtp-thread.js', import.meta.url);
    // The reader thread's boot file registers the TypeScript loader a thread does not inherit (see src/db/reader-boot.mjs).
    const setup: SmtpSetup = { url, connections };
    const worker = new Worker(new URL('../../db/reader-boot.mjs', import.meta.url), {
      workerData: { ...setup, entry: entry.href },
    });
    worker.on('message', (answer: SmtpAnswer) => {
      const send = waiting.get(answer.id);
      if (!send) return;
      waiting.delete(answer.id);
      if (waiting.size === 0) worker.unref();
      if ('error' in answer) send.reject(new Error(answer.error));
      else if ('cancelled' in answer) send.reject(new SendCancelled('handed back before it started'));
      else send.resolve(answer.response);
    });
    const fail = (err: Error) => {
      if (thread !== worker) return;
      thread = null;
      if (!closed) log(err);
      for (const send of waiting.values()) send.reject(err);
      waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SMTP thread exited with code ${code}`)));
    return worker;
  };
  return {
    send(_row, message) {
      if (closed) return Promise.reject(new Error('the mail transport is closed'));
      thread ??= start();
      const worker = thread;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.ref();
        const request: SmtpRequest = { id, message: message as SmtpMessage };
        worker.postMessage(request);
      });
    },
    cancelQueued() {
      const request: SmtpRequest = { kind: 'cancel' };
      thread?.postMessage(request);
    },
    close() {
      closed = true;
      const worker = thread;
      thread = null;
      for (const send of waiting.values()) send.reject(new Error('the mail transport is closed'));
      waiting.clear();
      if (worker) {
        // The pool says QUIT to the server; the thread then ends by itself.
        const request: SmtpRequest = { kind: 'close' };
        worker.postMessage(request);
        worker.unref();
      }
    },
  };
}

/**
 * Mail that is not sent, kept readable for development: nodemailer builds the message exactly as
 * it would for SMTP (its stream transport), and the raw RFC 5322 text is written to a file only
 * the service's user can read (0600, in a 0700 directory), since it holds what was bought.
 */
export function fileTransport(dir: string): MailTransport {
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let ready = false;
  const write = async (row: MailRow, message: SendMailOptions): Promise<string> => {
    if (!ready) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      ready = true;
    }
    // `buffer: true`: the message comes back whole, as a Buffer.
    const raw = (await stream.sendMail(message)).message as Buffer;
    // Sorted by creation time; the row id keeps names unique (a retry rewrites the same file).
    const file = join(dir, `${new Date(row.created_at).toISOString().replace(/[:.]/g, '-')}-${row.id}.eml`);
    await writeFile(file, raw, { mode: 0o600 });
    return file;
  };
  // One file at a time: what is queued behind can be handed back.
  let queued: { cancelled: boolean }[] = [];
  let last: Promise<unknown> = Promise.resolve();
  return {
    send(row, message) {
      const ticket = { cancelled: false };
      queued.push(ticket);
      const done = last.then(() => {
        queued = queued.filter((t) => t !== ticket);
        if (ticket.cancelled) throw new SendCancelled('handed back before it started');
        return write(row, message);
      });
      last = done.catch(() => undefined);
      return done;
    },
    cancelQueued() {
      for (const ticket of queued) ticket.cancelled = true;
    },
    close: () => stream.close(),
  };
}

/**
 * The domain of the sender's address (`shop@example.com` → `example.com`), for Message-IDs:
 * `localhost` when MAIL_FROM has none a Message-ID may carry.
 */
export function senderDomain(from: string): string {
  const domain = /^[A-Za-z0-9.-]+/.exec(from.slice(from.lastIndexOf('@') + 1))?.[0];
  return from.includes('@') && domain ? domain : 'localhost';
}
