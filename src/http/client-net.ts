import { isIPv4, isIPv6 } from 'node:net';

/**
 * The client as abuse limits count it (rate limits, stock holds, mail budgets):
 * an IPv4 address as it is, an IPv6 address as its /64. One subscriber line or one VPS gets a
 * whole /64, so counting single IPv6 addresses would let one client pass any limit with fresh
 * addresses. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address. Anything
 * else (no address, or not an IP) is null: the caller counts it by its other keys.
 */
export function clientNet(ip: string | null | undefined): string | null {
  if (!ip) return null;
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return null;
  const groups = ipv6Groups(ip);
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [high, low] = [Number.parseInt(groups[6]!, 16), Number.parseInt(groups[7]!, 16)];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case hex without leading zeros. */
function ipv6Groups(ip: string): string[] {
  let text = ip.toLowerCase().split('%')[0]!;
  // An embedded IPv4 tail (::1.2.3.4) is two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
  return groups.map((g) => Number.parseInt(g, 16).toString(16));
}
