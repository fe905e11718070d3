import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { SendMailOptions } from 'nodemailer';
import type { Config } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../domain/context.js';
import { ClaimLeases } from '../../jobs/lease.js';
import { nextAttemptAt, type RetrySchedule } from '../../jobs/retry.js';
import { type Job, runAlone, type StandaloneJob } from '../../jobs/runner.js';
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

/** The most rows one claim takes (see Sender). */
const MAX_CLAIM = 500;
/** 30 s, doubling, capped at an hour; eight attempts in all (service.ts). */
const MAIL_RETRIES: RetrySchedule = { attempts: MAX_ATTEMPTS, delayMs: retryDelayMs };

/** A mail worker of its own: the outbox job on a runner of its own (another instance's, the bench's). */
/** `stop()` hands the rows it claimed but has not started back to the queue at once, and waits (at most 5 s) for the sends in flight. */
export type MailWorker = StandaloneJob;

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
 * The outbox job (the app's runner, src/jobs/runner.ts, runs it as `mail`): it claims due rows
 * and sends up to `MAIL_CONCURRENCY` at once through a pooled SMTP transport on a thread of its
 * own (or, without `SMTP_URL`, writes `.eml` files under `DATA_DIR/mail`, one at a time), writing
 * each outcome as soon as its send ended (with the other outcomes that came in meanwhile, in one
 * transaction). A pass sends what is due until a claim comes back short; it drains (the runner
 * starts the next at once when it sent something). Claims follow the outboxes' lease discipline
 * (src/jobs/lease.ts); stopping, it hands back the rows it has not started at once.
 *
 * What it guarantees: a mail is marked sent in the first write after the server accepted it,
 * and every attempt of one mail carries the same Message-ID. What it cannot: a crash (or a lost
 * database) between the server's acceptance and that write sends the mail again once the lease
 * lapses; mail systems that drop a Message-ID they already delivered (Gmail does) show it once,
 * others twice.
 */
export function mailOutboxJob(app: FastifyInstance, options: MailWorkerOptions = {}): Job {
  const settings = { ...app.config.mail, ...options.mail };
  const db = options.db ?? app.db.kysely;
  const { clock } = app.ctx;
  const log = app.log.child({ component: 'mail' });
  const transport = settings.smtpUrl
    ? smtpTransport(settings.smtpUrl, settings.concurrency, (err) =>
        log.error({ err }, 'the SMTP thread failed; the next send starts a new one'),
      )
    : fileTransport(join(app.config.dataDir, MAIL_DIR));
  const leases = new ClaimLeases<MailRow>(
    {
      renew: (claims, leaseUntil) => renewMailClaims(db, claims, leaseUntil),
      recoverLapsed: (now) => recoverExpiredMailClaims(db, now),
    },
    { clock, log, heartbeatMs: options.heartbeatMs, stopGraceMs: options.stopGraceMs },
  );
  const sender = new Sender(db, transport, settings, log, leases, clock);
  let stopping = false;
  return {
    name: 'mail',
    intervalMs: settings.intervalMs,
    scheduled: options.schedule ?? settings.workerEnabled,
    drains: true,
    run: (now) => sender.pass(now, () => stopping),
    async stop(pass) {
      stopping = true;
      await sender.releaseUnstarted();
      await leases.stop(pass);
      transport.close();
    },
  };
}

/** The outbox job on a runner of its own, as another instance (or the bench) would run it. */
export function startMailWorker(app: FastifyInstance, options: MailWorkerOptions = {}): MailWorker {
  return runAlone(mailOutboxJob(app, options), { clock: app.ctx.clock, log: app.log, health: app.db.health });
}

/** What a send ended with, waiting to be written. */
type Outcome =
  | { row: MailRow; sent: true; at: number; response: string | null }
  | { row: MailRow; sent: false; attempts: number; lastError: string; nextAttemptAt: number; giveUp: boolean }
  | { row: MailRow; sent: 'never'; at: number };

/**
 * One worker's sends: the rows it claimed and has not started, and the outcomes not yet written;
 * every row it holds a claim on, started or not, is in its leases' `held`.
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
  /** Claimed, not started: what `stop()` hands back at once. */
  #queue: MailRow[] = [];
  #outcomes: Outcome[] = [];
  #writing: Promise<void> | null = null;
  #writeFailure: unknown;
  readonly #messageIdTail: string;

  constructor(
    readonly db: Conn,
    readonly transport: MailTransport,
    readonly settings: Config['mail'],
    readonly log: Log,
    /** The claims this worker holds (the heartbeat renews them). */
    readonly leases: ClaimLeases<MailRow>,
    readonly clock: Clock,
  ) {
    // Unique to this worker, so two installations sending from one domain never share an id.
    this.#messageIdTail = `${randomBytes(6).toString('base64url')}@${senderDomain(settings.from)}>`;
  }

  /**
   * One pass at `now`: recovers lapsed claims, then sends what is due until a claim finds fewer
   * rows than it asked for and those are sent; resolves once every outcome is written.
   */
  async pass(now: number, stopping: () => boolean): Promise<number> {
    // Never before the pass's moment: a pass asked for at a later time (a test's) stays there.
    const time = () => Math.max(now, this.clock.now());
    await this.leases.recoverLapsed(now);

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
      const at = time();
      const rows = await claimDueMail(this.db, at, this.leases.leaseUntil(at), size, this.#messageIdTail);
      for (const row of rows) this.leases.held.set(row.id, row);
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
          const job: Promise<void> = this.#send(row, time).then((ok) => {
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
    for (const row of rows) this.leases.held.delete(row.id);
    try {
      await releaseMailClaims(this.db, rows, this.clock.now());
    } catch (err) {
      this.log.warn({ err, rows: rows.length }, 'mail claims not handed back; they lapse with their lease');
    }
  }

  /** Sends one row; its outcome (at `time()`) joins the next write. Never rejects. */
  async #send(row: MailRow, time: () => number): Promise<boolean> {
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
      this.#record({ row, sent: true, at: time(), response });
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
        this.#record({ row, sent: 'never', at: time() });
        return false;
      }
      const attempts = row.attempts + 1;
      const at = time();
      const next = nextAttemptAt(MAIL_RETRIES, attempts, at);
      const giveUp = next === null;
      const lastError = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      this.#record({ row, sent: false, attempts, lastError, nextAttemptAt: next ?? at, giveUp });
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
          for (const o of batch) this.leases.held.delete(o.row.id);
        }
      }
    } finally {
      this.#writing = null;
    }
  }
}
