import type { Config } from '../../config.js';
import { ValidationError } from '../../http/errors.js';
import { hostName } from '../../http/storefront-url.js';

/**
 * Custom domains: a host of the owner's own at which the shop's storefront is served (issue 21).
 * The schema checks the shape (dot-separated labels of letters, digits and inner hyphens, either
 * case, an optional trailing dot); `normalizeCustomDomain` stores it lower-case without the dot and
 * refuses the hosts that cannot lead to one shop: IP addresses, `localhost`, the server's own
 * host, and the storefront domain with every host under it (those are subdomain addresses).
 */
export const DOMAIN_PATTERN =
  '^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?$';

export const DOMAIN_RULES =
  'at most 253 characters without its trailing dot; not an IP address (a name whose last label is all digits), not localhost ' +
  'or a host under it, not the server’s own host (PUBLIC_URL) or one of ADMIN_HOSTS, and not STOREFRONT_DOMAIN or a host under it';

type DomainConfig = Pick<Config, 'publicUrl' | 'storefrontDomain'> & Partial<Pick<Config, 'adminHosts'>>;

/** The stored form of a custom domain the body gave, or a 400 naming `domain`. */
export function normalizeCustomDomain(domain: string, config: DomainConfig): string {
  const name = domain.toLowerCase().replace(/\.$/, '');
  const refuse = (problem: string) => ValidationError.field('domain', problem);
  if (!new RegExp(DOMAIN_PATTERN).test(name)) throw refuse('must be a hostname such as shop.example.com');
  if (name.length > 253) throw refuse('must be at most 253 characters');
  if (/^\d+$/.test(name.slice(name.lastIndexOf('.') + 1))) throw refuse('must be a hostname, not an IP address');
  if (name === 'localhost' || name.endsWith('.localhost')) throw refuse('must not be localhost');
  if (name === new URL(config.publicUrl).hostname) throw refuse("must not be the server's own host (PUBLIC_URL)");
  if (config.adminHosts?.includes(name)) throw refuse("must not be one of the operator's hosts (ADMIN_HOSTS)");
  const storefrontDomain = config.storefrontDomain === undefined ? undefined : hostName(config.storefrontDomain);
  if (storefrontDomain && (name === storefrontDomain || name.endsWith(`.${storefrontDomain}`)))
    throw refuse(`must not be ${storefrontDomain} or a host under it: those are the shops' subdomain addresses`);
  return name;
}
