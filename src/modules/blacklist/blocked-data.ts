import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../http/errors.js';
import { EMAIL } from '../../schemas/common.js';
import type { BlockedItemType } from './blacklist.table.js';
import { countryCodes } from './countries.js';

/**
 * What a blocked item's `data` may be, in the one form it is stored and compared in:
 * e-mail lower-case, IP address or CIDR range canonical, country code upper-case.
 */
type Address = ipaddr.IPv4 | ipaddr.IPv6;

const PREFIX = /^(?:0|[1-9]\d{0,2})$/;

const invalid = (problem: string) => ValidationError.field('data', problem);

/** IPv4 in four-part decimal (no `10.1` or `0x0a.0.0.1`), or IPv6 without a zone. */
function parseWritten(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const addr = ipaddr.IPv6.parse(text);
  return addr.zoneId ? undefined : addr;
}

const isMapped = (addr: Address): addr is ipaddr.IPv6 =>
  addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress();
const bitsOf = (addr: Address) => (addr.kind() === 'ipv4' ? 32 : 128);

/** The address with every bit past `prefix` cleared. */
function networkOf(addr: Address, prefix: number): Address {
  const bytes = addr.toByteArray().map((byte, i) => {
    const kept = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & (0xff00 >> kept) & 0xff;
  });
  return ipaddr.fromByteArray(bytes);
}

/**
 * An address (`203.0.113.7`, `2001:db8::1`) or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`).
 * A range with host bits set (`10.0.0.1/8`) is refused rather than widened silently: the owner
 * may have meant the single address. A full-length prefix (`/32`, `/128`) is the address
 * itself, and an IPv4-mapped IPv6 address, or range of /96 or more, is stored as the IPv4 it covers.
 */
function normaliseIp(text: string): string {
  const problem = 'must be an IPv4 or IPv6 address or CIDR range, e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32';
  const [addressText = '', prefixText, ...rest] = text.split('/');
  const written = parseWritten(addressText);
  if (!written || rest.length > 0 || (prefixText !== undefined && !PREFIX.test(prefixText))) throw invalid(problem);
  let prefix = prefixText === undefined ? bitsOf(written) : Number(prefixText);
  if (prefix > bitsOf(written)) throw invalid(problem);
  const network = networkOf(written, prefix);
  if (network.toString() !== written.toString())
    throw invalid(`has bits set past the /${prefix} prefix; the range is ${network.toString()}/${prefix}`);
  let addr = written;
  if (isMapped(written) && prefix >= 96) {
    addr = written.toIPv4Address();
    prefix -= 96;
  }
  return prefix === bitsOf(addr) ? addr.toString() : `${addr.toString()}/${prefix}`;
}

/** `data` in its stored form, or a 400 naming `data`. */
export function normaliseBlockedData(type: BlockedItemType, data: string): string {
  const text = data.trim();
  switch (type) {
    case 'email': {
      if (text.length > 254 || !EMAIL.test(text)) throw invalid('must be an e-mail address');
      return text.toLowerCase();
    }
    case 'ip':
      return normaliseIp(text);
    case 'country': {
      const code = text.toUpperCase();
      if (!countryCodes.has(code)) throw invalid('must be an ISO 3166-1 alpha-2 country code, e.g. DE');
      return code;
    }
  }
}

/** A buyer's e-mail or country as stored data compares; null when there is nothing to compare. */
export function buyerEmailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function buyerCountryKey(country: string | null): string | null {
  const code = country?.trim().toUpperCase() ?? '';
  return /^[A-Z]{2}$/.test(code) ? code : null;
}

/** The buyer's IP (IPv4-mapped IPv6 as IPv4); undefined when it is not an address. */
export function parseBuyerIp(ip: string | null): Address | undefined {
  if (ip === null) return undefined;
  const text = ip.trim();
  if (!ipaddr.isValid(text)) return undefined;
  const addr = ipaddr.parse(text);
  return isMapped(addr) ? addr.toIPv4Address() : addr;
}

/** Whether stored ip data (an address or a CIDR range) covers the address; unreadable data covers nothing. */
export function ipDataCovers(data: string, addr: Address): boolean {
  try {
    const [network, prefix] = data.includes('/') ? ipaddr.parseCIDR(data) : [ipaddr.parse(data), bitsOf(addr)];
    return network.kind() === addr.kind() && addr.match(network, prefix);
  } catch {
    return false;
  }
}

/**
 * Many addresses and CIDR ranges (written as blocked ip data is), answering whether any covers
 * an address with one set lookup per distinct prefix length rather than one comparison per
 * range: a list of VPN ranges holds tens of thousands of them.
 */
export class IpRanges {
  /** `ipv4/24` → the networks of that length, as normalised text. */
  private readonly networks = new Map<string, Set<string>>();
  private count = 0;

  /** Adds an address or range; a ValidationError (`data: ...`) when it is not one. */
  add(text: string): void {
    const data = normaliseIp(text.trim());
    const [addressText, prefixText] = data.split('/');
    const addr = ipaddr.parse(addressText!);
    const key = `${addr.kind()}/${prefixText ?? bitsOf(addr)}`;
    let set = this.networks.get(key);
    if (!set) {
      set = new Set();
      this.networks.set(key, set);
    }
    if (!set.has(addr.toString())) this.count++;
    set.add(addr.toString());
  }

  /** Whether an address (as `parseBuyerIp` reads it) lies in any of the ranges. */
  covers(addr: Address): boolean {
    for (const [key, set] of this.networks) {
      const [kind, prefix] = key.split('/');
      if (kind === addr.kind() && set.has(networkOf(addr, Number(prefix)).toString())) return true;
    }
    return false;
  }

  get size(): number {
    return this.count;
  }
}
