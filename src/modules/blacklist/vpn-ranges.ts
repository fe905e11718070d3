import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config.js';
import { AppError, UnprocessableError } from '../../http/errors.js';
import { IpRanges, parseBuyerIp } from './blocked-data.js';

/** What blockVpn does, for every place it is set (shop gateway rules, variant gateway rules). */
export const BLOCK_VPN_DESCRIPTION =
  "Refuse checkouts through this gateway from buyers whose IP is in the server's VPN ranges (the operator's VPN_RANGES_FILE): a 422 naming the gateway. " +
  'Turning it on when the server has no VPN ranges configured is a 422; a rule stored on before that was checked is kept but not enforced until ' +
  'ranges are configured (the server logs how many at start).';

/**
 * The operator's list of VPN and proxy address ranges (`VPN_RANGES_FILE`), which the `blockVpn`
 * gateway rules of shops and variants are checked against at checkout. Read once at start: one
 * address or CIDR range per line, `#` starts a comment, blank lines are skipped. A line that is
 * not an address or range stops the start with its line number, rather than being skipped into
 * a list that silently lets some VPN through. Matched with the blacklist's CIDR rules
 * (blocked-data.ts): IPv4-mapped IPv6 counts as the IPv4 address.
 */
export class VpnRanges {
  constructor(
    readonly file: string,
    private readonly ranges: IpRanges,
  ) {}

  /** Whether the buyer's IP is in a VPN range; an IP that is not one (unknown) is not. */
  covers(ip: string | null): boolean {
    const addr = parseBuyerIp(ip);
    return addr !== undefined && this.ranges.covers(addr);
  }

  get size(): number {
    return this.ranges.size;
  }
}

/** The configured ranges, or null when no file is configured; a ConfigError naming the file and line otherwise. */
export function loadVpnRanges(file: string | undefined): VpnRanges | null {
  if (file === undefined) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`VPN_RANGES_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
  const ranges = new IpRanges();
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    try {
      ranges.add(line);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      problems.push(`line ${i + 1}: "${line.slice(0, 80)}" ${err.errors[0]!.replace(/^data: /, '')}`);
    }
  });
  if (problems.length > 0) {
    const shown =
      problems.slice(0, 10).join('\n  ') + (problems.length > 10 ? `\n  … and ${problems.length - 10} more` : '');
    throw new ConfigError(`VPN_RANGES_FILE: ${file} has lines that are not an IP address or CIDR range:\n  ${shown}`);
  }
  if (ranges.size === 0) throw new ConfigError(`VPN_RANGES_FILE: ${file} lists no address or range`);
  return new VpnRanges(file, ranges);
}

/**
 * `blockVpn` can only be turned on when the server has ranges to check it against: otherwise
 * it would be a switch that does nothing. A 422 naming the field.
 */
export function assertVpnBlockingAvailable(vpn: VpnRanges | null, field: string): void {
  if (!vpn) {
    throw new UnprocessableError(
      'This server has no VPN ranges configured, so blockVpn cannot be turned on; the operator sets VPN_RANGES_FILE.',
      [`${field}: cannot be true: the server has no VPN ranges configured (VPN_RANGES_FILE)`],
    );
  }
}
