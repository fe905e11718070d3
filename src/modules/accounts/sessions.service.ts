import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type Context, onConnection } from '../../domain/context.js';
import { AppError, NotFoundError, UnauthorizedError, ValidationError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import { hashPassword, verifyPassword } from '../../security/passwords.js';
import * as repo from './repository.js';
import { normaliseEmail, type Principal, scopes } from './service.js';
import type { OwnerSignInLimits } from './sign-in-limits.js';

type Conn = Kysely<Database>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A session ends this long after its last use… */
export const SESSION_IDLE_HOURS = 12;
/** …and at the latest this long after the sign-in, however much it is used. */
export const SESSION_MAX_DAYS = 7;
/** How long a link to set the password works (once). */
export const PASSWORD_SETUP_HOURS = 24;
/** A password's length in characters (code points), counted after Unicode NFKC normalisation. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;
/** `last_used_at` and `expires_at` are written at most this often per session: a request is not a write each time. */
const TOUCH_EVERY_MS = 5 * MINUTE;
/**
 * Live sessions an account keeps: a new sign-in ends the oldest beyond this. The owner rate limit
 * counts per session (and per key), so the number of either is bounded.
 */
export const MAX_SESSIONS_PER_ACCOUNT = 10;
/** A session or link token: 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const newToken = () => randomBytes(32).toString('base64url');
/** Sliding expiry: 12 h after the last use, never past 7 days after the sign-in. */
const expiryOf = (createdAt: number, usedAt: number) =>
  Math.min(usedAt + SESSION_IDLE_HOURS * HOUR, createdAt + SESSION_MAX_DAYS * DAY);

/**
 * What a sign-in without an account or a password compares the password against, so that every
 * refusal costs one scrypt and takes about the same time. Its password is random and thrown
 * away; matching it would open nothing anyway. Made at the first use, with the current cost.
 */
let dummyHash: Promise<string> | undefined;
function hashToCompare(stored: string | null | undefined): Promise<string> | string {
  if (stored) return stored;
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/** The password rules: 10 to 200 characters after NFKC (the form passwords are hashed in). */
export function checkPasswordRules(password: string, field: string): void {
  const length = [...password.normalize('NFKC')].length;
  if (length < PASSWORD_MIN_LENGTH)
    throw ValidationError.field(field, `must be at least ${PASSWORD_MIN_LENGTH} characters long`);
  if (length > PASSWORD_MAX_LENGTH)
    throw ValidationError.field(field, `must be at most ${PASSWORD_MAX_LENGTH} characters long`);
}

/**
 * The one answer to every refused sign-in, whatever the reason (no such account, no password
 * set, a wrong password): the answer tells a guesser nothing.
 */
function wrongCredentials(): AppError {
  return new AppError(401, 'unauthorized', 'E-mail or password is wrong.', ['password: is wrong for this e-mail']);
}

function unknownLink(): AppError {
  return new AppError(
    404,
    'not_found',
    'This link is unknown, used or expired; ask for a new one with `shopd users setup-link`.',
    ['token: is unknown, used or expired'],
  );
}

export interface OpenedSession {
  accountId: number;
  email: string;
  sessionId: number;
  /** Shown once, in the cookie; only its sha256 is stored. */
  token: string;
  expiresAt: number;
}

/**
 * Signs the owner in: a new session of the account. Each attempt counts against the address's and
 * the client's budgets before anything is compared (sign-in-limits.ts: past either, a 429 and
 * the password is not checked); a success takes it back. An unknown address, an account without
 * a password and a wrong password are one and the same 401, each after one scrypt comparison.
 */
export async function signIn(
  ctx: Context,
  limits: OwnerSignInLimits,
  input: { email: string; password: string; ip: string; knownDevice?: boolean },
): Promise<OpenedSession> {
  const email = input.email.trim().toLowerCase();
  await limits.take(email, input.ip, input.knownDevice);
  const account = await repo.findAccountByEmail(ctx.db, email);
  const matches = await verifyPassword(input.password, await hashToCompare(account?.password_hash));
  if (!account || account.password_hash === null || !matches) throw wrongCredentials();
  await limits.succeeded(email, input.ip, input.knownDevice);
  const now = ctx.clock.now();
  const token = newToken();
  const expiresAt = expiryOf(now, now);
  const sessionId = await ctx.db.transaction().execute(async (trx) => {
    await repo.lockAccount(trx, account.id);
    const id = await repo.insertSession(trx, {
      account_id: account.id,
      token_hash: sha256(token),
      created_at: now,
      expires_at: expiresAt,
      last_used_at: now,
    });
    await repo.deleteOldestSessions(trx, account.id, MAX_SESSIONS_PER_ACCOUNT);
    return id;
  });
  return { accountId: account.id, email: account.email, sessionId, token, expiresAt };
}

/**
 * The principal of a live session (both scopes), or undefined (unknown, signed out, expired,
 * malformed). A use extends the session (expiryOf), written at most every 5 minutes.
 */
export async function authenticateSession(ctx: Context, token: string): Promise<Principal | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const { db } = ctx;
  const now = ctx.clock.now();
  const row = await repo.findSessionByHash(db, sha256(token));
  if (!row || row.expires_at <= now) return undefined;
  if (now - row.last_used_at >= TOUCH_EVERY_MS) await repo.touchSession(db, row.id, now, expiryOf(row.created_at, now));
  return { accountId: row.account_id, keyId: null, sessionId: row.id, scopes: new Set(scopes) };
}

/** The caller's account and, for a session, when it ends (null for an API key). */
export async function describeCaller(
  ctx: Context,
  principal: Principal,
): Promise<{ accountId: number; email: string; expiresAt: string | null }> {
  const { db } = ctx;
  if (principal.sessionId !== null) {
    const session = await repo.findSessionOfAccount(db, principal.accountId, principal.sessionId);
    // Signed out by a parallel request since this one was authenticated.
    if (!session) throw new UnauthorizedError('This session has ended; sign in again.');
    return { accountId: principal.accountId, email: session.email, expiresAt: toIso(session.expires_at) };
  }
  const account = await repo.findAccountById(db, principal.accountId);
  if (!account) throw new UnauthorizedError();
  return { accountId: account.id, email: account.email, expiresAt: null };
}

/** Ends the session of a raw token, if it is one (a new sign-in in the browser that held it). */
export async function endSessionOfToken(ctx: Context, token: string): Promise<void> {
  if (TOKEN.test(token)) await repo.deleteSessionByHash(ctx.db, sha256(token));
}

/** Signs out: the session's cookie opens nothing from now on. An API key has no session to end. */
export async function signOut(ctx: Context, principal: Principal): Promise<void> {
  if (principal.sessionId !== null) await repo.deleteSession(ctx.db, principal.accountId, principal.sessionId);
}

/**
 * Stores a new password hash: every session of the account ends but `keep` (the caller's own),
 * and the account's unused setup links are retired (they were for setting a password). Run it
 * in a transaction.
 */
async function storePassword(
  trx: Conn,
  accountId: number,
  passwordHash: string,
  keep: number | null,
  now: number,
): Promise<void> {
  await repo.setPasswordHash(trx, accountId, passwordHash, now);
  await repo.deleteAccountSessions(trx, accountId, keep);
  await repo.retirePasswordTokens(trx, accountId, now);
}

/** Sets the password of the account with this e-mail (the CLI); its sessions all end. */
export async function setPassword(ctx: Context, email: string, password: string): Promise<{ email: string }> {
  const account = await repo.findAccountByEmail(ctx.db, normaliseEmail(email));
  if (!account) throw new NotFoundError('Account');
  checkPasswordRules(password, 'password');
  const passwordHash = await hashPassword(password);
  await ctx.db.transaction().execute((trx) => storePassword(trx, account.id, passwordHash, null, ctx.clock.now()));
  return { email: account.email };
}

/**
 * Changes the caller's password, knowing the current one (a wrong one, or none set: 400 on
 * `currentPassword`). The account's other sessions end; the caller's own goes on. With
 * `revokeApiKeys`, every API key of the account is revoked in the same transaction; without it
 * they keep working, and the answer says how many do.
 */
export async function changePassword(
  ctx: Context,
  limits: OwnerSignInLimits,
  principal: Principal,
  input: { currentPassword: string; newPassword: string; revokeApiKeys?: boolean | undefined; ip: string },
): Promise<{ revokedApiKeys: number; activeApiKeys: number }> {
  checkPasswordRules(input.newPassword, 'newPassword');
  const account = await repo.findAccountById(ctx.db, principal.accountId);
  if (!account) throw new UnauthorizedError();
  // The current password is a password guess like a sign-in's: a leaked key must not be a way to try many.
  await limits.take(account.email, input.ip);
  const matches = await verifyPassword(input.currentPassword, await hashToCompare(account.password_hash));
  if (account.password_hash === null || !matches)
    throw ValidationError.field('currentPassword', 'is not the current password');
  await limits.succeeded(account.email, input.ip);
  const passwordHash = await hashPassword(input.newPassword);
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock.now();
    await storePassword(trx, account.id, passwordHash, principal.sessionId, now);
    const revokedApiKeys = input.revokeApiKeys ? await repo.revokeAccountApiKeys(trx, account.id, now) : 0;
    return { revokedApiKeys, activeApiKeys: await repo.countActiveApiKeys(trx, account.id) };
  });
}

/**
 * A one-time token for the link that sets the account's password: valid 24 hours, usable once.
 * The account's earlier unused links stop working: only the newest one does.
 */
export function createPasswordSetupToken(ctx: Context, accountId: number): Promise<string> {
  return ctx.db.transaction().execute((trx) => issuePasswordSetupToken(onConnection(ctx, trx), accountId));
}

/** createPasswordSetupToken inside the caller's transaction (`ctx.db`). */
export async function issuePasswordSetupToken(ctx: Context, accountId: number): Promise<string> {
  const trx = ctx.db;
  const token = newToken();
  const now = ctx.clock.now();
  // Two links made at once must not both stay live: the second waits for the first's commit.
  await repo.lockAccount(trx, accountId);
  await repo.retirePasswordTokens(trx, accountId, now);
  await repo.insertPasswordToken(trx, {
    account_id: accountId,
    token_hash: sha256(token),
    created_at: now,
    expires_at: now + PASSWORD_SETUP_HOURS * HOUR,
    used_at: null,
  });
  return token;
}

/** A setup token for the account with this e-mail (the CLI's `users setup-link`); 404 without one. */
export async function setupTokenForEmail(ctx: Context, email: string): Promise<{ email: string; token: string }> {
  const account = await repo.findAccountByEmail(ctx.db, normaliseEmail(email));
  if (!account) throw new NotFoundError('Account');
  return { email: account.email, token: await createPasswordSetupToken(ctx, account.id) };
}

/** The link an owner opens to set the password; the token is in the fragment, which no request carries to a server log. */
export function passwordSetupLink(publicUrl: string, token: string): string {
  return `${publicUrl}/admin/setup#token=${token}`;
}

/**
 * Sets the password with a setup link's token and spends the token (unknown, used or expired:
 * 404). The password's rules are checked first, so a refused password leaves the link usable;
 * every session of the account ends.
 */
export async function usePasswordSetupToken(ctx: Context, token: string, password: string): Promise<{ email: string }> {
  checkPasswordRules(password, 'password');
  const tokenHash = sha256(token);
  // Checked before the hashing, so that unknown tokens cost no scrypt.
  if (!TOKEN.test(token) || (await repo.findLivePasswordToken(ctx.db, tokenHash, ctx.clock.now())) === undefined)
    throw unknownLink();
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction().execute(async (trx) => {
    // The time after the scrypt: a token that expired meanwhile is not spent.
    const now = ctx.clock.now();
    const accountId = await repo.spendPasswordToken(trx, tokenHash, now);
    // A parallel request spent it first.
    if (accountId === undefined) throw unknownLink();
    await storePassword(trx, accountId, passwordHash, null, now);
    const account = await repo.findAccountById(trx, accountId);
    return { email: account!.email };
  });
}

/**
 * Removes what can open nothing any more: expired sessions, and setup tokens expired or used.
 * Run hourly beside the other sweeps; a row a stopped server missed is refused all the same
 * (expiry is checked on every use).
 */
export function sweepOwnerSessions(db: Conn, now: number): Promise<number> {
  return repo.sweepDeadRows(db, now);
}
