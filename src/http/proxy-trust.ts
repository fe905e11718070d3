import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';

/**
 * Whether the request's TCP peer is a proxy that `TRUST_PROXY` names, so that headers only such a
 * proxy sets (the country header, `COUNTRY_HEADER`) may be believed. A client talking to the
 * server directly can send any header it likes: believing its `cf-ipcountry` made the country
 * blacklist a header away (issue 36, L6). `true` trusts every peer (the operator says every
 * connection comes through the proxy), a hop count trusts every peer too (the nearest hop is a
 * proxy), a list of addresses and CIDR ranges only the peers in it; `false` none.
 */
export function fromTrustedProxy(request: FastifyRequest, trustProxy: Config['trustProxy']): boolean {
  if (trustProxy === false) return false;
  if (trustProxy === true || typeof trustProxy === 'number') return trustProxy !== 0;
  const peer = request.socket?.remoteAddress;
  if (!peer || !ipaddr.isValid(peer)) return false;
  const address = ipaddr.process(peer);
  return rangesOf(trustProxy).some(([base, bits]) => address.kind() === base.kind() && address.match(base, bits));
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const parsedRanges = new WeakMap<string[], Range[]>();

/** TRUST_PROXY's entries (validated by config.ts) as ranges, parsed once per config. */
function rangesOf(entries: string[]): Range[] {
  let ranges = parsedRanges.get(entries);
  if (!ranges) {
    ranges = entries.map((entry): Range => {
      const [text, bits] = entry.split('/') as [string, string | undefined];
      const base = ipaddr.process(text);
      // An IPv4-mapped IPv6 range is its IPv4 range, as the peer's address is compared as IPv4.
      const mapped = ipaddr.parse(text).kind() === 'ipv6' && base.kind() === 'ipv4';
      const width = bits === undefined ? (base.kind() === 'ipv4' ? 32 : 128) : Number(bits) - (mapped ? 96 : 0);
      return [base, Math.max(0, width)];
    });
    parsedRanges.set(entries, ranges);
  }
  return ranges;
}

/** A header only a trusted proxy may set: its value when the request came through one, else undefined. */
export function proxyHeader(request: FastifyRequest, name: string): string | undefined {
  if (!fromTrustedProxy(request, request.server.config.trustProxy)) return undefined;
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
