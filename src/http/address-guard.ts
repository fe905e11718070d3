import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * SSRF protection for owner-supplied URLs (webhooks, dynamic delivery): only http(s), and every
 * address the host resolves to must be a public unicast one — not loopback, private, link-local
 * (cloud metadata lives at 169.254.169.254), unique-local, CGNAT, multicast, reserved or
 * unspecified, in IPv4 or IPv6 (IPv4-mapped IPv6 is judged as the IPv4 it carries). Checked when
 * a URL is saved, and again at every connection through the socket's own lookup
 * (`checkedLookup`, used by `outbound.ts`), so DNS rebinding cannot slip past.
 */
export class UnsafeUrlError extends Error {}

/** How a host name becomes addresses: the system resolver, or a test's stand-in. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d, which
    // ipaddr.js counts as unicast: `[::7f00:1]` is 127.0.0.1) are judged as the IPv4 they carry.
    const carriesIpv4 = v6.isIPv4MappedAddress() || v6.parts.slice(0, 6).every((part) => part === 0);
    if (carriesIpv4) parsed = ipaddr.fromByteArray(v6.toByteArray().slice(12));
  }
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

/** The URL's host without IPv6 brackets, and whether it is an IP literal (never looked up). */
export function hostOf(url: URL): { host: string; literal: boolean } {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host, literal: ipaddr.isValid(host) };
}

function nonPublic(addresses: LookupAddress[]): string | undefined {
  if (addresses.length === 0) return 'none';
  return addresses.find((a) => !isPublicAddress(a.address))?.address;
}

export interface UrlCheckOptions {
  /**
   * Accept a host name that does not resolve now (nothing is refused that could be checked):
   * a URL saved before its name is published. The connection is checked again anyway.
   */
  acceptUnresolvable?: boolean;
  resolve?: Resolver;
}

/** Resolves the URL's host and refuses it unless every address is public (or private ones are allowed). */
export async function assertPublicUrl(
  raw: string,
  allowPrivate: boolean,
  options: UrlCheckOptions = {},
): Promise<void> {
  const url = checkUrlShape(raw);
  if (allowPrivate) return;
  const { host, literal } = hostOf(url);
  let addresses: LookupAddress[];
  try {
    addresses = literal
      ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
      : await (options.resolve ?? systemResolver)(host);
  } catch {
    if (options.acceptUnresolvable) return;
    throw new UnsafeUrlError(`host ${host} does not resolve`);
  }
  const blocked = nonPublic(addresses);
  if (blocked !== undefined) throw new UnsafeUrlError(`resolves to a non-public address (${blocked})`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type SocketLookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

/**
 * A `lookup` for http(s).request that answers only public addresses: the connection itself is
 * made to an address that was checked, whatever DNS says a moment before or after.
 */
export function checkedLookup(resolve: Resolver = systemResolver): SocketLookup {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const blocked = nonPublic(addresses);
        if (blocked !== undefined) {
          callback(
            Object.assign(new Error(`refused: ${hostname} resolves to a non-public address (${blocked})`), {
              code: 'EPRIVATE',
            }),
            [],
          );
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0]!.address, addresses[0]!.family);
        }
      },
      (err: NodeJS.ErrnoException) =>
        callback(
          Object.assign(new Error(`${hostname} does not resolve (${err.code ?? err.message})`), { code: err.code }),
          [],
        ),
    );
  };
}
