/** Shop subdomains: 3–32 lower-case letters, digits and inner hyphens, minus a few reserved words. */
export const SUBDOMAIN_PATTERN = '^[a-z0-9](?:[a-z0-9-]{1,30}[a-z0-9])$';
export const SUBDOMAIN = new RegExp(SUBDOMAIN_PATTERN);

/** Names a shop cannot take: they are, or may become, the service's own hosts. */
export const reservedSubdomains: ReadonlySet<string> = new Set([
  'admin',
  'api',
  'app',
  'assets',
  'billing',
  'blog',
  'cdn',
  'checkout',
  'dashboard',
  'docs',
  'help',
  'mail',
  'public',
  'root',
  'self',
  'shop',
  'shops',
  'shopd',
  'smtp',
  'static',
  'status',
  'support',
  'www',
]);
