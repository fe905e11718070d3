import { Value } from '@sinclair/typebox/value';
import { createChallenge, type Payload, randomInt, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { constraintViolation } from '../../db/database.js';
import type { Context } from '../../domain/context.js';
import { clientNet } from '../../http/client-net.js';
import { ChallengeRequiredError, NotFoundError } from '../../http/errors.js';
import type { SecretBox } from '../../security/secret-box.js';
import { protectionOf, type ShopProtection } from '../protection/index.js';
import { requireShop } from '../shops/index.js';
import * as repo from './repository.js';
import { type IssuedChallenge, SolvedPayload } from './schema.js';

/** The one algorithm: PBKDF2 runs natively in browsers (WebCrypto) and in Node, and ALTCHA's widget bundles its worker. */
export const CHALLENGE_ALGORITHM = 'PBKDF2/SHA-256';
/** How long a challenge may be solved and used: long enough to fill in a checkout form. */
export const CHALLENGE_TTL_SECONDS = 20 * 60;
const HOUR = 3_600_000;
/** A payload larger than this is not a solution (a real one is about 600 characters). */
const MAX_PAYLOAD = 4096;

/** What the public flows ask of the challenge module (`app.challenges`). */
export interface ChallengeGate {
  /** A new challenge for this shop, signed by this server (404 for an unknown shop). */
  issue(shopId: number): Promise<IssuedChallenge>;
  /** Whether this client's next checkout, ticket or sign-in code in this shop needs a solved challenge. */
  required(shopId: number, ip: string | null | undefined): Promise<boolean>;
  /**
   * Lets one such action through: when the shop asks this client for a challenge, `payload` (the
   * widget's base64 JSON: the `X-Altcha` header or the form's `altcha` field) must be a valid,
   * unexpired solution of a challenge of this shop not spent before, else ChallengeRequiredError
   * (428). The action is then counted for the client's velocity and the solution spent.
   */
  admit(shopId: number, ip: string | null | undefined, payload: string | null | undefined): Promise<void>;
}

/** Deletes actions older than an hour and spent solutions past their expiry (the hourly sweeps); answers how many. */
export async function sweepChallenges(ctx: Context, now: number): Promise<number> {
  return (await repo.deleteActionsBefore(ctx.db, now - HOUR)) + (await repo.deleteSolutionsBefore(ctx.db, now));
}

/**
 * The proof-of-work challenge (ALTCHA, self-hosted: `altcha-lib` here, the `altcha` widget in the
 * storefront). Deterministic mode: the server draws the counter the browser must reach and signs
 * the derived key, so a solution is checked with one HMAC, while finding it costs the client
 * about `counter × cost` PBKDF2 iterations. The HMAC keys are derived from the server key.
 */
export function createChallengeGate(ctx: Context, secrets: SecretBox): ChallengeGate {
  const hmacSignatureSecret = secrets.deriveKey('altcha-challenge').toString('hex');
  const hmacKeySignatureSecret = secrets.deriveKey('altcha-challenge-key').toString('hex');
  const { cost, counterMax } = ctx.config.challenge;

  async function needed(
    shopId: number,
    net: string | null,
    challenge: ShopProtection['challenge'],
    challengeThreshold: number,
  ): Promise<boolean> {
    if (challenge === 'off') return false;
    if (challenge === 'always') return true;
    // A request without an address (none behind a proxy that sent none) is asked every time.
    if (net === null) return true;
    const since = ctx.clock.now() - HOUR;
    return (await repo.countActions(ctx.db, shopId, net, since, challengeThreshold)) >= challengeThreshold;
  }

  /** Why a payload does not open an action for this shop, or null when it does (and is now spent). */
  async function refusal(shopId: number, payload: string | null | undefined): Promise<string | null> {
    if (!payload) return 'missing';
    if (payload.length > MAX_PAYLOAD) return 'not a solution';
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
    } catch {
      return 'not a solution';
    }
    if (!Value.Check(SolvedPayload, decoded)) return 'not a solution';
    const solved = decoded as unknown as Payload;
    // On the service's clock (the library compares with the system's too).
    const expiresAt = (solved.challenge.parameters.expiresAt ?? 0) * 1000;
    if (expiresAt <= ctx.clock.now()) return 'expired';
    const result = await verifySolution({
      challenge: solved.challenge,
      solution: solved.solution,
      deriveKey,
      hmacSignatureSecret,
      hmacKeySignatureSecret,
    });
    if (result.expired) return 'expired';
    if (!result.verified) return 'not a solution';
    // Signed, so the shop it names is the one it was issued for.
    if (solved.challenge.parameters.data?.shop !== shopId) return 'of another shop';
    if (!(await repo.spendSolution(ctx.db, shopId, solved.challenge.parameters.nonce, expiresAt))) return 'spent';
    return null;
  }

  return {
    async issue(shopId) {
      await requireShop(ctx.db, shopId);
      // Deterministic mode with a signature: every field of the schema is set.
      return (await createChallenge({
        algorithm: CHALLENGE_ALGORITHM,
        cost,
        counter: randomInt(Math.max(1, Math.floor(counterMax / 2)), counterMax),
        deriveKey,
        expiresAt: Math.floor(ctx.clock.now() / 1000) + CHALLENGE_TTL_SECONDS,
        data: { shop: shopId },
        hmacSignatureSecret,
        hmacKeySignatureSecret,
      })) as IssuedChallenge;
    },

    async required(shopId, ip) {
      const { challenge, challengeThreshold } = await protectionOf(ctx.db, shopId);
      return needed(shopId, clientNet(ip), challenge, challengeThreshold);
    },

    async admit(shopId, ip, payload) {
      const net = clientNet(ip);
      const { challenge, challengeThreshold } = await protectionOf(ctx.db, shopId);
      if (challenge === 'off') return;
      if (await needed(shopId, net, challenge, challengeThreshold)) {
        const why = await refusal(shopId, payload);
        if (why !== null)
          throw new ChallengeRequiredError(
            why === 'missing'
              ? 'This shop asks for a solved proof-of-work challenge before this action: get one from ' +
                  `GET /v2/public/shops/${shopId}/challenge, solve it and send it as the X-Altcha header.`
              : 'The proof-of-work solution was not accepted: solve a new challenge and send it again.',
            [`X-Altcha: ${why === 'missing' ? 'is required' : `is ${why}`}`],
          );
      }
      if (net === null) return;
      try {
        await repo.insertAction(ctx.db, shopId, net, ctx.clock.now());
      } catch (err) {
        // No such shop (no read of it here: the action's own route reads it, once, in its transaction).
        if (constraintViolation(err) === 'foreign_key') throw new NotFoundError('Shop');
        throw err;
      }
    },
  };
}
