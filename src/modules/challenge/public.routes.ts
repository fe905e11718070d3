import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { PublicShopParams } from '../shops/index.js';
import { Challenge } from './schema.js';

export const challengePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/shops/:shopId/challenge', {
    config: { public: true },
    schema: {
      tags: ['Checkout'],
      summary: 'A proof-of-work challenge (ALTCHA) for the actions a shop may ask one for',
      description:
        'A shop asks a client to solve a challenge before a checkout (`POST …/invoices`), a support ticket ' +
        '(`POST …/tickets`) or a customer sign-in code (`POST …/customer/sign-in`) when its `settings/protection` say so: ' +
        "`challenge: 'always'`, or `'suspicious'` (the default) once the client (its IPv4 address or IPv6 /64) took " +
        '`challengeThreshold` of these actions in this shop in the last hour (default 5). Such a request without a solution ' +
        'is a **428** `challenge_required` that changes nothing. To pass, fetch a challenge here, solve it and send ' +
        '`X-Altcha: <base64 of {"challenge":{"parameters":…,"signature":…},"solution":{"counter":…,"derivedKey":…}}>` ' +
        'with the action. The [ALTCHA widget](https://altcha.org) does all of it in a browser (`<altcha-widget ' +
        'challenge="/v2/public/shops/{shopId}/challenge">` puts the payload in a form field named `altcha`); a program ' +
        'can use `solveChallenge` of `altcha-lib` with its `PBKDF2/SHA-256` `deriveKey`. A solution opens one action ' +
        'of this shop within 20 minutes (`parameters.expiresAt`); a second use, another shop, an expired or altered one ' +
        'is a 428 again. Solving costs about `cost × counter` PBKDF2 iterations (the server draws the counter; a browser ' +
        'takes a second or two), checking it one HMAC. Unlike every other answer this one is the challenge itself, ' +
        'not the envelope: it is what the widget reads. Not cached: each challenge is new.',
      params: PublicShopParams,
      response: { 200: Challenge, ...errorResponses([400, 404, 429]) },
    },
    handler: async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return app.challenges.issue(request.params.shopId);
    },
  });
};
