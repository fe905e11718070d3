import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * SSRF protection for owner-supplied URLs: only http(s), and every address the host resolves to
 * must be a public unicast one — not loopback, private, link-local (cloud metadata lives at
 * 169.254.169.254), unique-local, CGNAT, multicast, reserved or unspecified, in IPv4 or IPv6
 * (IPv4-mapped IPv6 is judged as the IPv4 it carries). Checked at registration and again at
 * every connection, through the socket's own lookup, so DNS rebinding cannot slip past.
 */
export class UnsafeUrlError extends Error {}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export function checkUrlShape(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeUrlError('must be an http or https URL');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  return url;
}

/** Resolves the URL's host and refuses it unless every address is public (or private ones are allowed). */
export async function assertPublicUrl(raw: string, allowPrivate: boolean): Promise<void> {
  const url = checkUrlShape(raw);
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  try {
    addresses = ipaddr.isValid(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new UnsafeUrlError(`host ${host} does not resolve`);
  }
  const blocked = addresses.find((a) => !isPublicAddress(a.address));
  if (addresses.length === 0 || blocked) throw new UnsafeUrlError(`resolves to a non-public address (${blocked?.address ?? 'none'})`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that answers only public addresses: the connection itself is
 * made to an address that was checked, whatever DNS says a moment later.
 */
export function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  lookup(hostname, { all: true, verbatim: true })
    .then((addresses) => {
      const blocked = addresses.find((a) => !isPublicAddress(a.address));
      if (addresses.length === 0 || blocked) {
        callback(Object.assign(new Error(`refused: ${hostname} resolves to a non-public address (${blocked?.address ?? 'none'})`), { code: 'EPRIVATE' }), []);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    })
    .catch((err: NodeJS.ErrnoException) => callback(err, []));
}
