import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type { Database } from '../../db/schema.js';
import type { MailRow } from './mail.table.js';
import {
  claimDueMail,
  insertMail,
  markMailAttemptFailed,
  markMailSent,
  recoverExpiredMailClaims,
  releaseMailClaims,
} from './repository.js';

type Conn = Kysely<Database>;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The same content as HTML (src/modules/mail/templates); sent beside the text as multipart/alternative. */
  html?: string;
}

/**
 * Addresses under `.invalid`, the top-level domain reserved never to exist (RFC 2606, RFC 6761):
 * no mail to them can ever arrive. The demo seed gives its fictitious customers such addresses.
 */
export function neverReceivesMail(address: string): boolean {
  return /(^|\.)invalid\.?$/i.test(address.slice(address.lastIndexOf('@') + 1));
}

/**
 * Writes one mail to the outbox inside the caller's transaction; the worker sends it. Mail to an
 * address that can never receive it is recorded as `dropped` instead, which no worker sends.
 */
export function enqueueMail(db: Conn, shopId: number, mail: OutgoingMail): Promise<void> {
  const dropped = neverReceivesMail(mail.to)
    ? { reason: 'not sent: .invalid addresses never receive mail (RFC 6761)' }
    : undefined;
  return insertMail(db, shopId, mail, Date.now(), dropped);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** Rows claimed per statement; small, so a slow SMTP server holds few rows hostage. */
const BATCH_SIZE = 10;
/** Batches per pass at most, so one pass cannot run forever while mail keeps arriving. */
const MAX_BATCHES_PER_PASS = 20;
/** A `sending` row older than this was abandoned by a crashed worker and is taken back. */
export const CLAIM_LEASE_MS = 10 * MINUTE;
/** Past half the lease a pass stops and hands its untried rows back, well before anyone may take them. */
const PASS_DEADLINE_MS = CLAIM_LEASE_MS / 2;
export const MAX_ATTEMPTS = 8;
const FIRST_RETRY_MS = 30 * SECOND;
const MAX_RETRY_MS = 60 * MINUTE;
/** How long `stop()` waits for a send in flight (its lease recovers it); inside the server's 10 s shutdown grace. */
const STOP_GRACE_MS = 5 * SECOND;

/** Delay before the next try after `attempts` failed ones: 30 s, 1 min, 2 min, … capped at 1 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}

export interface MailWorker {
  /** Sends what is due now and resolves with how many were sent; waits for a pass already running. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for the pass in flight. */
  stop(): Promise<void>;
}

export interface MailWorkerOptions {
  /** Run a pass every `config.mail.intervalMs`; default `config.mail.workerEnabled`. */
  schedule?: boolean;
  /** Another connection to the same database (as a second instance would have); default `app.db`. */
  db?: Conn;
}

/**
 * The outbox worker: every interval it claims due rows, sends each through SMTP (or, without
 * `SMTP_URL`, writes it to an `.eml` file under `DATA_DIR/mail`) and records the outcome. Passes never overlap: the timer
 * schedules the next one only after the last ended, and `runOnce` queues behind a running one.
 * The timer never keeps the process alive; database errors are logged and retried next time.
 */
export function startMailWorker(app: FastifyInstance, options: MailWorkerOptions = {}): MailWorker {
  const { mail } = app.config;
  const db = options.db ?? app.db.kysely;
  const log = app.log.child({ component: 'mail' });
  const smtp = mail.smtpUrl ? createSmtpTransport(mail.smtpUrl) : null;
  const files = smtp ? null : new MailFiles(join(app.config.dataDir, MAIL_DIR));
  const deliver = async (row: MailRow): Promise<void> => {
    const message: SendMailOptions = { from: mail.from, to: row.to_address, subject: row.subject, text: row.body_text };
    // With both, nodemailer writes multipart/alternative: clients show the HTML, or the text.
    if (row.body_html !== null) message.html = row.body_html;
    if (smtp) {
      await smtp.sendMail(message);
    } else {
      // Never the body (what was bought, ticket links, sign-in codes) nor the subject (it names the
      // order, whose id opens its page).
      const file = await files!.write(row, message);
      log.info(
        { mailId: row.id, shopId: row.shop_id, to: row.to_address, file },
        'mail written to a file (SMTP_URL unset)',
      );
    }
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let last: Promise<unknown> = Promise.resolve();

  const pass = (): Promise<number> => {
    const current = last.then(() => sendDueMail(db, deliver, log, () => stopped));
    last = current.catch(() => undefined);
    return current;
  };
  const scheduleNext = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      pass()
        .catch((err: unknown) => log.error({ err }, 'mail worker pass failed'))
        .finally(scheduleNext);
    }, mail.intervalMs);
    timer.unref();
  };
  if (options.schedule ?? mail.workerEnabled) scheduleNext();

  return {
    runOnce() {
      if (stopped) return Promise.reject(new Error('the mail worker is stopped'));
      return pass();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      let grace: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        grace = setTimeout(() => resolve(true), STOP_GRACE_MS);
        grace.unref();
      });
      if (await Promise.race([last.then(() => false), timedOut])) {
        log.warn('mail worker stopped with a send in flight; its row is retried after the claim lease');
      }
      clearTimeout(grace);
      smtp?.close();
      files?.close();
    },
  };
}

/** Where mail goes without `SMTP_URL`: one `.eml` file per message under `DATA_DIR/mail`. */
export const MAIL_DIR = 'mail';

/**
 * Mail that is not sent, kept readable for development: nodemailer builds the message exactly as
 * it would for SMTP (its stream transport), and the raw RFC 5322 text is written to a file only
 * the service's user can read (0600, in a 0700 directory), since it holds what was bought.
 */
class MailFiles {
  readonly #transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  #ready = false;

  constructor(readonly dir: string) {}

  async write(row: MailRow, message: SendMailOptions): Promise<string> {
    if (!this.#ready) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await chmod(this.dir, 0o700);
      this.#ready = true;
    }
    // `buffer: true`: the message comes back whole, as a Buffer.
    const raw = (await this.#transport.sendMail(message)).message as Buffer;
    // Sorted by creation time; the row id keeps names unique (a retry rewrites the same file).
    const file = join(this.dir, `${new Date(row.created_at).toISOString().replace(/[:.]/g, '-')}-${row.id}.eml`);
    await writeFile(file, raw, { mode: 0o600 });
    return file;
  }

  close(): void {
    this.#transport.close();
  }
}

function createSmtpTransport(url: string): Transporter {
  // Options in the URL's query (e.g. ?ignoreTLS=true, ?tls.rejectUnauthorized=false) win over
  // these. Short timeouts keep one send well inside the claim lease.
  return nodemailer.createTransport({
    url,
    connectionTimeout: 15 * SECOND,
    greetingTimeout: 15 * SECOND,
    socketTimeout: 30 * SECOND,
  });
}

type Log = FastifyInstance['log'];

/** One pass: recovers abandoned claims, then claims and sends due mail batch by batch. */
async function sendDueMail(
  db: Conn,
  deliver: (row: MailRow) => Promise<void>,
  log: Log,
  stopping: () => boolean,
): Promise<number> {
  const started = Date.now();
  const recovered = await recoverExpiredMailClaims(db, started);
  if (recovered > 0) log.warn({ recovered }, 'mail rows abandoned mid-send were queued again');

  let sent = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
    const now = Date.now();
    const rows = await claimDueMail(db, now, now + CLAIM_LEASE_MS, BATCH_SIZE);
    for (const [index, row] of rows.entries()) {
      if (stopping() || Date.now() - now > PASS_DEADLINE_MS) {
        await releaseMailClaims(
          db,
          rows.slice(index).map((r) => r.id),
          Date.now(),
        );
        return sent;
      }
      if (await sendOne(db, row, deliver, log)) sent++;
    }
    if (rows.length < BATCH_SIZE || stopping()) break;
  }
  return sent;
}

async function sendOne(db: Conn, row: MailRow, deliver: (row: MailRow) => Promise<void>, log: Log): Promise<boolean> {
  try {
    await deliver(row);
  } catch (err) {
    const attempts = row.attempts + 1;
    const giveUp = attempts >= MAX_ATTEMPTS;
    const lastError = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
    await markMailAttemptFailed(db, row.id, {
      attempts,
      lastError,
      nextAttemptAt: Date.now() + retryDelayMs(attempts),
      giveUp,
    });
    if (giveUp) log.error({ err, mailId: row.id, attempts }, 'mail failed for good');
    else log.warn({ err, mailId: row.id, attempts }, 'mail not sent; will retry');
    return false;
  }
  await markMailSent(db, row.id, Date.now());
  return true;
}
