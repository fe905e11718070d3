import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { ok, publicResponses } from '../../schemas/common.js';
import * as schema from './schema.js';
import { customerLicenses, freeCustomerInstance } from './service.js';

const tags = ['Licenses'];
const session = [{ customerSession: [] }];
const signedIn =
  'Needs a customer session of this shop as `Authorization: Bearer <token>` (see *Customer area*; none, or not a live ' +
  "session of this shop: 401). The buyer's licenses are those bought with the session's address; another buyer's license " +
  'is the same 404 as none. Needs no storefront password: the session is the proof.';

/**
 * The signed-in buyer's address, or 401. (customer-sessions' `signedInCustomer` does the same; this
 * module cannot import it: customer-sessions builds on orders, which shows this module's licences.)
 */
function buyerEmail(request: FastifyRequest): string {
  if (request.customer) return request.customer.email;
  throw new AppError(401, 'unauthorized', 'Sign in to the customer area first: this needs a customer session.', [
    'authorization: needs "Bearer <token>" with a live customer session of this shop',
  ]);
}

/** The buyer's licences in the customer area: the storefront's account page is built on these. */
export const licenseCustomerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get('/shops/:shopId/customer/licenses', {
    config: { public: true, customerSession: true },
    schema: {
      tags,
      summary: "The signed-in buyer's licenses",
      description: `Every license of this shop bought with the session's address, newest first, with the instances each is activated on now. Answered \`Cache-Control: private, no-store\`. ${signedIn}`,
      security: session,
      params: schema.LicenseCallParams,
      response: publicResponses(schema.CustomerLicenses, [401]),
    },
    handler: async (request, reply) => {
      const email = buyerEmail(request);
      void reply.header('cache-control', 'private, no-store');
      return ok(await customerLicenses(ctx, request.params.shopId, email));
    },
  });

  app.post('/shops/:shopId/customer/licenses/:licenseId/instances/:instanceId/deactivate', {
    config: { public: true, customerSession: true, keepsPages: true },
    schema: {
      tags,
      summary: 'Free an instance of one of my licenses',
      description:
        "Deactivates the instance, as the program's own `deactivate` would: `deactivated` is false when it was already free. " +
        `Answers the license as it now is. An instance not of this license: 404. Publishes \`license.deactivated\` (\`by: "customer"\`). ${signedIn}`,
      security: session,
      params: schema.CustomerInstanceParams,
      response: publicResponses(schema.InstanceFreed, [401]),
    },
    handler: async (request) => {
      const { shopId, licenseId, instanceId } = request.params;
      return ok(await freeCustomerInstance(ctx, shopId, buyerEmail(request), licenseId, instanceId));
    },
  });
};
