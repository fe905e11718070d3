import { type Static, Type } from '@sinclair/typebox';

const hex = (description: string) => Type.String({ pattern: '^[0-9a-f]+$', maxLength: 256, description });

/** A challenge's parameters; its `signature` covers them all, as sent. */
const ChallengeParameters = Type.Object({
  algorithm: Type.String({ description: 'Always `PBKDF2/SHA-256`.' }),
  cost: Type.Integer({ description: 'PBKDF2 iterations per try.' }),
  data: Type.Object(
    { shop: Type.Integer({ description: 'The shop it was issued for: it opens actions there only.' }) },
    { additionalProperties: false },
  ),
  expiresAt: Type.Integer({ description: 'Unix seconds after which a solution is refused (20 minutes after issue).' }),
  keyLength: Type.Integer(),
  keyPrefix: hex('The start of the key the solver must derive.'),
  keySignature: hex("The server's HMAC of the key it expects."),
  nonce: hex('Random: what makes each challenge, and its solution, single-use.'),
  salt: hex('Random salt of the derivation.'),
});

export const Challenge = Type.Object(
  {
    parameters: ChallengeParameters,
    signature: hex("The server's HMAC of the parameters."),
  },
  { title: 'Challenge' },
);
export type IssuedChallenge = Static<typeof Challenge>;

/**
 * What the widget sends (base64 of this JSON): the challenge as issued and the solution found.
 * Checked for shape before anything is computed from it.
 */
export const SolvedPayload = Type.Object({
  challenge: Type.Object({
    parameters: Type.Object({
      algorithm: Type.String({ maxLength: 32 }),
      nonce: Type.String({ minLength: 1, maxLength: 256 }),
      salt: Type.String({ maxLength: 256 }),
      cost: Type.Integer({ minimum: 1 }),
      keyLength: Type.Integer({ minimum: 1, maximum: 64 }),
      keyPrefix: Type.String({ minLength: 1, maxLength: 256 }),
      keySignature: Type.Optional(Type.String({ maxLength: 256 })),
      expiresAt: Type.Optional(Type.Number()),
      data: Type.Optional(
        Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
      ),
    }),
    signature: Type.Optional(Type.String({ maxLength: 256 })),
  }),
  solution: Type.Object({
    counter: Type.Integer({ minimum: 0 }),
    derivedKey: Type.String({ maxLength: 256 }),
    time: Type.Optional(Type.Number()),
  }),
});

/** The header that carries a solution on the public API's checkout, ticket and sign-in-code calls. */
export const AltchaHeaders = Type.Object({
  'x-altcha': Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        'A solved proof-of-work challenge (`GET /v2/public/shops/{shopId}/challenge`), as the ALTCHA widget encodes it: ' +
        'needed when the shop asks this client for one (else 428 `challenge_required`), ignored otherwise.',
    }),
  ),
});
