import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Config } from '../../src/config.js';
import { hostName } from '../../src/http/storefront-url.js';
import { SUBDOMAIN } from '../../src/modules/shops/index.js';

/**
 * How a request reaches a shop's storefront. Every storefront page lives under `/s/{shop}/…`,
 * where `{shop}` is the subdomain, or `~{host}` for a custom domain. A request whose Host is
 * `{subdomain}.{STOREFRONT_DOMAIN}` or some other name (a custom domain an owner pointed here)
 * is rewritten before routing (Fastify's `rewriteUrl`), so `https://demo.shops.example/products/x`
 * is served by the route of `/s/demo/products/x`; pages then link without the `/s/{shop}` prefix.
 *
 * Paths of the service itself (the APIs, docs, assets, uploaded images, the admin) are never rewritten: an API
 * call to a custom domain still reaches the API. `/s/…` is: on a shop's host it is a path of
 * that shop (a 404), so one owner's domain never serves another shop's pages or cookies.
 */
const SERVICE_PATHS =
  /^\/(?:v2|self|assets|docs|openapi\.json|health|ready|metrics|tls-ask|admin|uploads|favicon\.ico|embed\.js)(?:[/?#]|$)/;

/** Set on the raw request when its Host chose the shop: its pages link from `/`. */
export const HOST_ADDRESSED = Symbol('storefront.hostAddressed');

type AddressedRequest = IncomingMessage & { [HOST_ADDRESSED]?: true };

export function isHostAddressed(raw: IncomingMessage): boolean {
  return (raw as AddressedRequest)[HOST_ADDRESSED] === true;
}

/**
 * The `rewriteUrl` function for Fastify: `/s/{subdomain}{url}` for a storefront subdomain host,
 * `/s/~{host}{url}` for any other named host that is not the instance's own (`PUBLIC_URL`), and
 * the URL unchanged for service paths, IP addresses, `localhost` and the operator's own hosts.
 */
export function storefrontRewrite(
  config: Pick<Config, 'publicUrl' | 'storefrontDomain'> & Partial<Pick<Config, 'adminHosts'>>,
) {
  // The operator's hosts (PUBLIC_URL's, ADMIN_HOSTS) are never a shop's.
  const ownHosts = new Set([new URL(config.publicUrl).hostname.toLowerCase(), ...(config.adminHosts ?? [])]);
  const domain = config.storefrontDomain ? hostName(config.storefrontDomain) : undefined;
  const suffix = domain ? `.${domain}` : undefined;
  return (raw: IncomingMessage): string => {
    const url = raw.url ?? '/';
    if (SERVICE_PATHS.test(url)) return url;
    const host = hostName(raw.headers.host);
    if (!host || ownHosts.has(host) || host === domain || isIP(host) !== 0 || !host.includes('.')) return url;
    let shop: string;
    if (suffix && host.endsWith(suffix)) {
      const sub = host.slice(0, -suffix.length);
      if (!SUBDOMAIN.test(sub)) return url;
      shop = sub;
    } else {
      shop = `~${host}`;
    }
    (raw as AddressedRequest)[HOST_ADDRESSED] = true;
    return `/s/${shop}${url.startsWith('/') ? url : `/${url}`}`;
  };
}
