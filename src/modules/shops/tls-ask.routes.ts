import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Context } from '../../domain/context.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import { hostName } from '../../http/storefront-url.js';
import { Envelope, ErrorEnvelope, ok } from '../../schemas/common.js';
import { verifiedShopOfDomain } from './domain-verification.js';
import { findShopBySubdomain } from './repository.js';
import { SUBDOMAIN } from './subdomains.js';

/** Why this instance serves a host: its own (PUBLIC_URL), a shop's subdomain address, a shop's custom domain. */
export type ServedHost = 'instance' | 'subdomain' | 'customDomain';

/**
 * Whether this instance serves `name` (a host as `hostName` gives it), and as what: PUBLIC_URL's
 * host or one of ADMIN_HOSTS, `{subdomain}.{STOREFRONT_DOMAIN}` of an existing shop, or an
 * existing shop's custom domain whose DNS TXT verification was found (domain-verification.ts:
 * asked of DNS only until it is found once). At most one read of a unique index (custom domains
 * are never under STOREFRONT_DOMAIN: custom-domains.ts refuses them, so a name is looked up one
 * way only).
 */
export async function servedHost(ctx: Context, name: string): Promise<ServedHost | undefined> {
  const { db, config } = ctx;
  if (name === new URL(config.publicUrl).hostname.toLowerCase() || config.adminHosts.includes(name)) return 'instance';
  const storefrontDomain = config.storefrontDomain ? hostName(config.storefrontDomain) : undefined;
  if (storefrontDomain && name.endsWith(`.${storefrontDomain}`)) {
    const subdomain = name.slice(0, -storefrontDomain.length - 1);
    if (!SUBDOMAIN.test(subdomain)) return undefined;
    return (await findShopBySubdomain(db, subdomain)) ? 'subdomain' : undefined;
  }
  return (await verifiedShopOfDomain(ctx, name)) ? 'customDomain' : undefined;
}

const TlsAskQuery = Type.Object({
  domain: Type.String({
    minLength: 1,
    maxLength: 260,
    description: 'The host name a TLS client asked for (its SNI), e.g. `demo.shops.example.com`.',
  }),
});

/**
 * `GET /tls-ask?domain=<host>`: the `ask` endpoint of a reverse proxy that obtains certificates
 * on demand (Caddy's `on_demand_tls`, see deploy/Caddyfile and docs/deployment.md). 200 when this
 * instance serves the host, 404 when it does not, so the proxy requests a certificate only for
 * hosts that lead somewhere and nobody can make it exhaust the CA's rate limits with made-up
 * names. A custom domain counts only once its owner proved it with the DNS TXT record
 * `_shopd-verify.<domain>` (docs/deployment.md). It answers what any visitor could learn by opening the host, so it needs no key; it is
 * the proxy's, not part of the public API: outside the OpenAPI document and the rate limits (the
 * proxy asks for every new name, and a 429 would deny a shop its certificate).
 */
export const tlsAskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/tls-ask', {
    config: { rateLimit: false },
    schema: {
      hide: true,
      querystring: TlsAskQuery,
      response: {
        200: Envelope(
          Type.Object({
            domain: Type.String(),
            serves: Type.Union([Type.Literal('instance'), Type.Literal('subdomain'), Type.Literal('customDomain')]),
          }),
        ),
        400: Type.Ref(ErrorEnvelope),
        404: Type.Ref(ErrorEnvelope),
      },
    },
    handler: async (request) => {
      const name = hostName(request.query.domain);
      if (name === undefined) throw ValidationError.field('domain', 'must be a host name such as shop.example.com');
      const serves = await servedHost(app.ctx, name);
      if (serves === undefined) throw new NotFoundError('Host', [`domain: ${name} is not served here`]);
      return ok({ domain: name, serves });
    },
  });
};
