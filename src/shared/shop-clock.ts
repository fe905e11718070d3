/**
 * A shop's clock: the time zone its days, dates and hours are counted in. Either an IANA time
 * zone (`Europe/Berlin`: its offset changes with daylight saving, so a day may last 23 or 25
 * hours) or, for a shop that set none, the fixed UTC offset of the original API's
 * `utcTimezoneOffset`. Local days are numbered as days since 1970-01-01 on that clock.
 *
 * Offsets come from `Intl` (the ICU time zone data Node ships) and are remembered per zone and
 * UTC day (per quarter hour on a day its offset changes; no zone changes but at a quarter hour):
 * reading one costs tens of microseconds, and a rollup rebuild asks for millions.
 */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const QUARTER_MS = 15 * MINUTE_MS;

export interface ShopClock {
  /** The IANA zone, or null for a fixed offset. */
  readonly zone: string | null;
  /** Minutes east of UTC at this instant. */
  offsetAt(ms: number): number;
  /** The local day of an instant (days since 1970-01-01 on this clock). */
  dayOf(ms: number): number;
  /** The local hour of an instant, 0–23 (an hour repeated when clocks go back counts once, as that hour). */
  hourOf(ms: number): number;
  /** The first millisecond of a local day. */
  dayStart(day: number): number;
  /**
   * The instant a local wall time names (given as epoch milliseconds read as if UTC). A time the
   * clock skips when it goes forward is read as after the jump (02:30 is 03:30); a time it shows
   * twice when it goes back is the first of the two (as Temporal's `compatible`).
   */
  instantOf(wallMs: number): number;
}

/** A clock a fixed number of minutes east of UTC. */
export function fixedClock(offsetMinutes: number): ShopClock {
  const offsetMs = offsetMinutes * MINUTE_MS;
  return {
    zone: null,
    offsetAt: () => offsetMinutes,
    dayOf: (ms) => Math.floor((ms + offsetMs) / DAY_MS),
    hourOf: (ms) => Math.floor((ms + offsetMs) / HOUR_MS) - Math.floor((ms + offsetMs) / DAY_MS) * 24,
    dayStart: (day) => day * DAY_MS - offsetMs,
    instantOf: (wallMs) => wallMs - offsetMs,
  };
}

const zoneClocks = new Map<string, ShopClock>();

/** The clock of an IANA time zone (`timeZone` must be one `isTimeZone` accepts). */
export function zoneClock(timeZone: string): ShopClock {
  const known = zoneClocks.get(timeZone);
  if (known) return known;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    era: 'short',
  });
  const read = (ms: number): number => {
    const at = Math.floor(ms / MINUTE_MS) * MINUTE_MS;
    const p: Record<string, string> = {};
    for (const part of parts.formatToParts(at)) p[part.type] = part.value;
    const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
    const wall = new Date(0);
    wall.setUTCFullYear(year, Number(p.month) - 1, Number(p.day));
    wall.setUTCHours(Number(p.hour), Number(p.minute), 0, 0);
    return Math.round((wall.getTime() - at) / MINUTE_MS);
  };
  // Remembered per UTC day: its offset when the day starts and ends with the same one (no zone
  // changes twice within a day), else per quarter hour of that day.
  const days = new Map<number, number | Map<number, number>>();
  const offsetAt = (ms: number): number => {
    const utcDay = Math.floor(ms / DAY_MS);
    let known = days.get(utcDay);
    if (known === undefined) {
      const first = read(utcDay * DAY_MS);
      known = first === read((utcDay + 1) * DAY_MS - MINUTE_MS) ? first : new Map<number, number>();
      if (days.size >= 50_000) days.clear();
      days.set(utcDay, known);
    }
    if (typeof known === 'number') return known;
    const quarter = Math.floor(ms / QUARTER_MS);
    let offset = known.get(quarter);
    if (offset === undefined) {
      offset = read(quarter * QUARTER_MS);
      known.set(quarter, offset);
    }
    return offset;
  };
  const local = (ms: number) => ms + offsetAt(ms) * MINUTE_MS;
  const instantOf = (wallMs: number): number => {
    // The offsets a day before and after: every wall time of the day maps through one of them.
    const before = offsetAt(wallMs - DAY_MS);
    const after = offsetAt(wallMs + DAY_MS);
    const fits = [before, after]
      .map((offset) => wallMs - offset * MINUTE_MS)
      .filter((ms) => local(ms) === wallMs)
      .sort((a, b) => a - b);
    // Shown twice: the first. Skipped: after the jump, read with the offset before it.
    return fits[0] ?? wallMs - before * MINUTE_MS;
  };
  const clock: ShopClock = {
    zone: timeZone,
    offsetAt,
    dayOf: (ms) => Math.floor(local(ms) / DAY_MS),
    hourOf: (ms) => {
      const l = local(ms);
      return Math.floor(l / HOUR_MS) - Math.floor(l / DAY_MS) * 24;
    },
    dayStart: (day) => instantOf(day * DAY_MS),
    instantOf,
  };
  zoneClocks.set(timeZone, clock);
  return clock;
}

/** A shop's clock: its time zone when it set one, else its fixed UTC offset. */
export function shopClock(shop: { timezone: string | null; utc_offset_minutes: number }): ShopClock {
  return shop.timezone === null ? fixedClock(shop.utc_offset_minutes) : zoneClock(shop.timezone);
}

let zoneNames: Map<string, string> | undefined;

/**
 * The IANA name of a time zone, spelled as the time zone list spells it (`europe/berlin` is
 * `Europe/Berlin`), or null when `Intl` knows no such zone. A name the list gives under another
 * (ICU lists `Asia/Calcutta`, not `Asia/Kolkata`) is kept as given. Only `UTC` and names with a
 * slash: offsets (`+01:00`) and abbreviations (`CET`, `EST`) are refused, the one being what
 * `utcTimezoneOffset` is for, the others ambiguous.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^(?:UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+)$/.test(name)) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return null;
  }
  zoneNames ??= new Map([...Intl.supportedValuesOf('timeZone'), 'UTC'].map((zone) => [zone.toLowerCase(), zone]));
  return zoneNames.get(name.toLowerCase()) ?? name;
}
