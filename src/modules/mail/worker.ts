import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { SendMailOptions } from 'nodemailer';
import type { Config } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { MailRow } from './mail.table.js';
import {
  claimDueMail,
  markMailAttemptFailed,
  markMailSent,
  recoverExpiredMailClaims,
  releaseMailClaims,
  renewMailClaims,
} from './repository.js';
import { MAX_ATTEMPTS, retryDelayMs } from './service.js';
import {
  fileTransport,
  MAIL_DIR,
  type MailTransport,
  SendCancelled,
  senderDomain,
  smtpTransport,
} from './transport.js';

type Conn = Kysely<Database>;
type Log = FastifyInstance['log'];

const SECOND = 1000;
/**
 * How long a claim lasts unless its worker renews it. A live worker renews the claims it holds
 * every `HEARTBEAT_MS`, however long a send takes; after a crash (kill -9, a lost machine) its
 * rows are taken back by the next pass of any worker once this has passed.
 */
export const CLAIM_LEASE_MS = 30 * SECOND;
/** A third of the lease: two beats may fail (a slow database) before a live claim lapses. */
export const HEARTBEAT_MS = 10 * SECOND;
/** How long `stop()` waits for sends in flight (their lease covers the rest); inside the server's 10 s shutdown grace. */
const STOP_GRACE_MS = 5 * SECOND;
/** The most rows one claim takes (see Sender). */
const MAX_CLAIM = 500;

export interface MailWorker {
  /** Sends what is due now and resolves with how many were sent; waits for a pass already running. */
  runOnce(): Promise<number>;
  /**
   * Stops the timer, hands the rows it claimed but has not started sending back to the queue at
   * once, and waits (at most 5 s) for the sends in flight.
   */
  stop(): Promise<void>;
}

export interface MailWorkerOptions {
  /** Run a pass every `config.mail.intervalMs`; default `config.mail.workerEnabled`. */
  schedule?: boolean;
  /** Another connection to the same database (as a second instance would have); default `app.db`. */
  db?: Conn;
  /** Settings of this worker instead of `config.mail`'s (the bench points one at its SMTP sink). */
  mail?: Partial<Config['mail']>;
  /** How often held claims are renewed; default `HEARTBEAT_MS` (tests shorten it). */
  heartbeatMs?: number;
  /** How long `stop()` waits for sends in flight; default 5 s (tests lengthen it). */
  stopGraceMs?: number;
}

/**
 * The outbox worker: it claims due rows and sends up to `MAIL_CONCURRENCY` at once through a
 * pooled SMTP transport on a thread of its own (or, without `SMTP_URL`, writes `.eml` files under
 * `DATA_DIR/mail`, one at a time), writing each outcome as soon as its send ended (with the other
 * outcomes that came in meanwhile, in one transaction). A pass sends what is due until a claim
 * comes back short; the next one follows at once when it sent something, else after the
 * interval. Passes never overlap, and the timer never keeps the process alive.
 *
 * What it guarantees: a mail is marked sent in the first write after the server accepted it,
 * and every attempt of one mail carries the same Message-ID. What it cannot: a crash (or a lost
 * database) between the server's acceptance and that write sends the mail again once the lease
 * lapses; mail systems that drop a Message-ID they already delivered (Gmail does) show it once,
 * others twice.
 */
export function startMailWorker(app: FastifyInstance, options: MailWorkerOptions = {}): MailWorker {
  const settings = { ...app.config.mail, ...options.mail };
  const db = options.db ?? app.db.kysely;
  const log = app.log.child({ component: 'mail' });
  const transport = settings.smtpUrl
    ? smtpTransport(settings.smtpUrl, settings.concurrency, (err) =>
        log.error({ err }, 'the SMTP thread failed; the next send starts a new one'),
      )
    : fileTransport(join(app.config.dataDir, MAIL_DIR));
  const sender = new Sender(db, transport, settings, log);

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let last: Promise<unknown> = Promise.resolve();

  const heartbeat = setInterval(() => void sender.beat(), options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  const pass = (): Promise<number> => {
    const current = last.then(() => sender.pass(() => stopped));
    last = current.catch(() => undefined);
    return current;
  };
  const scheduleNext = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      pass().then(
        (sent) => scheduleNext(sent > 0 ? 0 : settings.intervalMs),
        (err: unknown) => {
          // A database outage is logged once by the database's health (storage-health.ts), not at every pass.
          if (app.db.health.report(err)) log.debug({ err }, 'mail worker pass failed');
          else log.error({ err }, 'mail worker pass failed');
          scheduleNext(settings.intervalMs);
        },
      );
    }, delayMs);
    timer.unref();
  };
  if (options.schedule ?? settings.workerEnabled) scheduleNext(settings.intervalMs);

  return {
    runOnce() {
      if (stopped) return Promise.reject(new Error('the mail worker is stopped'));
      return pass();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await sender.releaseUnstarted();
      let grace: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        grace = setTimeout(() => resolve(true), options.stopGraceMs ?? STOP_GRACE_MS);
        grace.unref();
      });
      if (await Promise.race([last.then(() => false), timedOut])) {
        log.warn(
          { inFlight: sender.held.size, leaseMs: CLAIM_LEASE_MS },
          'mail worker stopped with sends in flight; their rows are retried once the claim lease lapses',
        );
      }
      clearTimeout(grace);
      clearInterval(heartbeat);
      transport.close();
    },
  };
}

/** What a send ended with, waiting to be written. */
type Outcome =
  | { row: MailRow; sent: true; at: number; response: string | null }
  | { row: MailRow; sent: false; attempts: number; lastError: string; nextAttemptAt: number; giveUp: boolean }
  | { row: MailRow; sent: 'never'; at: number };

/**
 * One worker's sends: the rows it holds (claimed, started or not), the ones not started, and the
 * outcomes not yet written.
 *
 * Under load every statement waits its turn behind the requests queued for the database (on
 * SQLite, behind every checkout transaction: most of a second at c=50), so a worker that wrote
 * each outcome, or claimed a few rows, before its next send sent a few mails per such wait (the
 * bench's MAIL measured 0.02× the checkout rate). Hence, measured by MAIL: every claimed row is
 * handed to the transport at once, which sends `concurrency` at a time on its own (SMTP: on its
 * thread, see transport.ts) and hands back those not started when the worker stops; each outcome
 * is written by the next write of outcomes, which takes every outcome that came in meanwhile in
 * one transaction (at once when no write is under way); and the next claim is made once fewer
 * than half the claimed rows are left, and takes twice as many as the last when the transport
 * ran out of rows while it waited (from 2 × `concurrency` up to 500).
 */
class Sender {
  /** Every row this worker holds a claim on, by id: what the heartbeat renews. */
  readonly held = new Map<number, MailRow>();
  /** Claimed, not started: what `stop()` hands back at once. */
  #queue: MailRow[] = [];
  #outcomes: Outcome[] = [];
  #writing: Promise<void> | null = null;
  #writeFailure: unknown;
  readonly #messageIdTail: string;
  #beating = false;

  constructor(
    readonly db: Conn,
    readonly transport: MailTransport,
    readonly settings: Config['mail'],
    readonly log: Log,
  ) {
    // Unique to this worker, so two installations sending from one domain never share an id.
    this.#messageIdTail = `${randomBytes(6).toString('base64url')}@${senderDomain(settings.from)}>`;
  }

  /**
   * One pass: recovers lapsed claims, then sends what is due until a claim finds fewer rows than
   * it asked for and those are sent; resolves once every outcome is written.
   */
  async pass(stopping: () => boolean): Promise<number> {
    const recovered = await recoverExpiredMailClaims(this.db, Date.now());
    if (recovered > 0) this.log.warn({ recovered }, 'mail rows abandoned mid-send were queued again');

    const { concurrency } = this.settings;
    const smallest = 2 * concurrency;
    let claimSize = smallest;
    let claiming: Promise<void> | null = null;
    let exhausted = false;
    let failure: unknown;
    let sent = 0;
    const inFlight = new Set<Promise<void>>();
    const claim = async () => {
      const size = claimSize;
      const now = Date.now();
      const rows = await claimDueMail(this.db, now, now + CLAIM_LEASE_MS, size, this.#messageIdTail);
      for (const row of rows) this.held.set(row.id, row);
      this.#queue.push(...rows);
      exhausted = rows.length < size;
      // The transport ran out of rows while the claim waited: the next one brings twice as many.
      if (inFlight.size === 0) claimSize = Math.min(MAX_CLAIM, 2 * size);
    };
    let handedBack = false;
    for (;;) {
      const ending = stopping() || failure !== undefined;
      if (ending) {
        // Once, and again for rows a claim under way brought back meanwhile.
        if (!handedBack || this.#queue.length > 0) await this.releaseUnstarted();
        handedBack = true;
      } else {
        // All of them: the transport sends `concurrency` at once and queues the rest.
        while (this.#queue.length > 0) {
          const row = this.#queue.shift()!;
          const job: Promise<void> = this.#send(row).then((ok) => {
            if (ok) sent++;
            inFlight.delete(job);
          });
          inFlight.add(job);
        }
        if (!claiming && !exhausted && inFlight.size < claimSize / 2) {
          claiming = claim()
            // Claim nothing more; the sends in flight end before the pass reports it.
            .catch((err: unknown) => {
              failure ??= err;
            })
            .finally(() => {
              claiming = null;
            });
        }
      }
      if (inFlight.size === 0 && !claiming && (ending || this.#queue.length === 0)) break;
      await Promise.race(claiming ? [...inFlight, claiming] : inFlight);
    }
    while (this.#writing) await this.#writing;
    const writeFailure = this.#writeFailure;
    this.#writeFailure = undefined;
    if (failure !== undefined) throw failure;
    if (writeFailure !== undefined) throw writeFailure;
    return sent;
  }

  /**
   * Hands the claimed rows not started back to the queue, due at once (another worker may take
   * them): those not handed to the transport here, and those it has not started (written as
   * their sends come back cancelled).
   */
  async releaseUnstarted(): Promise<void> {
    this.transport.cancelQueued();
    const rows = this.#queue.splice(0);
    for (const row of rows) this.held.delete(row.id);
    try {
      await releaseMailClaims(this.db, rows, Date.now());
    } catch (err) {
      this.log.warn({ err, rows: rows.length }, 'mail claims not handed back; they lapse with their lease');
    }
  }

  /** The heartbeat: renews the claims held, and takes back other workers' lapsed ones meanwhile. */
  async beat(): Promise<void> {
    if (this.#beating || this.held.size === 0) return;
    this.#beating = true;
    try {
      const now = Date.now();
      await renewMailClaims(this.db, [...this.held.values()], now + CLAIM_LEASE_MS);
      const recovered = await recoverExpiredMailClaims(this.db, now);
      if (recovered > 0) this.log.warn({ recovered }, 'mail rows abandoned mid-send were queued again');
    } catch (err) {
      this.log.warn({ err }, 'mail claims not renewed; retrying at the next beat');
    } finally {
      this.#beating = false;
    }
  }

  /** Sends one row; its outcome joins the next write. Never rejects. */
  async #send(row: MailRow): Promise<boolean> {
    const message: SendMailOptions = {
      from: this.settings.from,
      to: row.to_address,
      subject: row.subject,
      text: row.body_text,
      // Chosen at the first claim: a retry of a mail the server took but we never heard back
      // about carries the same id, which lets mail systems drop the second copy.
      ...(row.message_id ? { messageId: row.message_id } : {}),
    };
    // With both, nodemailer writes multipart/alternative: clients show the HTML, or the text.
    if (row.body_html !== null) message.html = row.body_html;
    try {
      const response = await this.transport.send(row, message);
      this.#record({ row, sent: true, at: Date.now(), response });
      if (!this.settings.smtpUrl) {
        // Never the body (what was bought, ticket links, sign-in codes) nor the subject (it
        // names the order, whose id opens its page).
        this.log.info(
          { mailId: row.id, shopId: row.shop_id, to: row.to_address, file: response },
          'mail written to a file (SMTP_URL unset)',
        );
      }
      return true;
    } catch (err) {
      if (err instanceof SendCancelled) {
        this.#record({ row, sent: 'never', at: Date.now() });
        return false;
      }
      const attempts = row.attempts + 1;
      const giveUp = attempts >= MAX_ATTEMPTS;
      const lastError = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      this.#record({
        row,
        sent: false,
        attempts,
        lastError,
        nextAttemptAt: Date.now() + retryDelayMs(attempts),
        giveUp,
      });
      if (giveUp) this.log.error({ err, mailId: row.id, attempts }, 'mail failed for good');
      else this.log.warn({ err, mailId: row.id, attempts }, 'mail not sent; will retry');
      return false;
    }
  }

  #record(outcome: Outcome): void {
    this.#outcomes.push(outcome);
    this.#writing ??= this.#write();
  }

  /** Writes the outcomes that came in, all of them in one transaction, until none is left. */
  async #write(): Promise<void> {
    try {
      while (this.#outcomes.length > 0) {
        const batch = this.#outcomes.splice(0);
        try {
          await this.db.transaction().execute(async (trx) => {
            for (const o of batch) {
              if (o.sent === 'never') await releaseMailClaims(trx, [o.row], o.at);
              else if (o.sent) await markMailSent(trx, o.row, o.at, o.response);
              else await markMailAttemptFailed(trx, o.row, o);
            }
          });
        } catch (err) {
          // The rows stay claimed until their lease lapses; then they are sent again, each with its Message-ID.
          this.#writeFailure ??= err;
        } finally {
          for (const o of batch) this.held.delete(o.row.id);
        }
      }
    } finally {
      this.#writing = null;
    }
  }
}
