import { createContext, type ReactNode, useContext } from 'react';
import { strings } from '../strings';
import { type ShopClock, type ShopDates, shopDates } from '../ui/format';

/**
 * The current shop's way of writing dates, given by the frame (Layout), which knows the shop from
 * the shop list. A context rather than a module variable: a screen is the frame's `children`, which
 * React does not render again when only the frame does, so it must subscribe to the change itself
 * (a time zone saved in the settings rewrites every date on screen at once).
 */
const ShopDatesContext = createContext<ShopDates>(shopDates(null));

export function ShopDatesProvider(props: { clock: ShopClock | null | undefined; children: ReactNode }) {
  // One remembered object per clock: the consumers render again only when the clock changes.
  const dates = shopDates(
    props.clock ? { timezone: props.clock.timezone, utcTimezoneOffset: props.clock.utcTimezoneOffset } : null,
  );
  return <ShopDatesContext.Provider value={dates}>{props.children}</ShopDatesContext.Provider>;
}

/**
 * Dates and times on the shop's clock (its time zone, or its fixed UTC offset), not the browser's:
 * `const { dateTime, date } = useShopDates()`. Every component that writes a date calls it.
 */
export function useShopDates(): ShopDates {
  return useContext(ShopDatesContext);
}

/**
 * An instant written on the shop's clock, as a `<time>` whose tooltip names the clock ("Times in
 * Europe/Berlin"); `date` writes the day alone. `—` (or `none`) when there is no instant.
 */
export function ShopTime(props: { iso: string | null | undefined; date?: boolean; none?: ReactNode }) {
  const dates = useShopDates();
  if (!props.iso) return <>{props.none ?? dates.dateTime(null)}</>;
  return (
    <time dateTime={props.iso} title={dates.known ? strings.common.timesIn(dates.zone) : undefined}>
      {props.date ? dates.date(props.iso) : dates.dateTime(props.iso)}
    </time>
  );
}
