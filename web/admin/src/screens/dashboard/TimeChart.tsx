import { useEffect, useRef, useSyncExternalStore } from 'react';
import uPlot from 'uplot';
import { strings } from '../../strings';
import 'uplot/dist/uPlot.min.css';
import { count, money } from '../../ui/format';
import { dayLabel } from './range';

/**
 * A day-by-day chart drawn by uPlot (a canvas, about 50 kB: this file is its own chunk, loaded
 * while the figures are fetched). The plot is created in an effect, follows its box's width and
 * is destroyed on unmount; its colours are the stylesheet's variables, read again when the
 * browser switches between light and dark.
 */
export interface TimeChartProps {
  /** The series' name, e.g. "Revenue"; also the legend's. */
  label: string;
  /** Days, YYYY-MM-DD, oldest first. */
  days: readonly string[];
  values: readonly number[];
  /** Money in `currency`, or whole counts. */
  unit: { money: string } | 'count';
  kind: 'area' | 'bars';
  /** What the chart shows, in words: the canvas is no use to a screen reader. */
  summary: string;
  height?: number;
}

const darkQuery = '(prefers-color-scheme: dark)';
function subscribeToScheme(onChange: () => void) {
  const query = window.matchMedia(darkQuery);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}
const isDark = () => window.matchMedia(darkQuery).matches;

/** `#3552d4` with an alpha, for the area under a line; other colour syntaxes get no fill. */
function translucent(color: string, alpha: number): string | undefined {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return undefined;
  const n = Number.parseInt(hex, 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

const compactFormats = new Map<string, Intl.NumberFormat>();
function compact(unit: TimeChartProps['unit']): Intl.NumberFormat {
  const key = unit === 'count' ? '' : unit.money;
  let format = compactFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(undefined, {
      notation: 'compact',
      maximumFractionDigits: 1,
      ...(unit === 'count' ? {} : { style: 'currency', currency: unit.money }),
    });
    compactFormats.set(key, format);
  }
  return format;
}

export default function TimeChart(props: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const dark = useSyncExternalStore(subscribeToScheme, isDark);
  const { label, days, values, unit, kind } = props;
  const height = props.height ?? 220;
  const currency = unit === 'count' ? null : unit.money;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `dark` switches the CSS variables the plot reads
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const style = getComputedStyle(element);
    const variable = (name: string) => style.getPropertyValue(name).trim();
    const accent = variable('--accent');
    const muted = variable('--muted');
    const line = variable('--line');
    const panel = variable('--panel');
    const font = `12px ${style.fontFamily}`;
    const show = (v: number | null | undefined) =>
      v === null || v === undefined ? '—' : currency === null ? count(v) : money(v, currency);
    const axisFormat = compact(currency === null ? 'count' : { money: currency });
    const axis = { stroke: muted, font, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };

    const options: uPlot.Options = {
      width: element.clientWidth,
      height,
      // The days are the shop's, written as UTC midnights: shown as they are, whatever the browser's timezone.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      cursor: { points: { show: kind === 'area' }, drag: { x: false, y: false } },
      legend: { show: true, live: true },
      series: [
        {
          label: strings.dashboard.day,
          value: (_u, ts) => (ts === null ? '—' : dayLabel(new Date(ts * 1000).toISOString().slice(0, 10))),
        },
        {
          label,
          stroke: accent,
          width: kind === 'area' ? 2 : 0,
          ...(kind === 'area'
            ? { fill: translucent(accent, 0.15), points: { show: days.length <= 31, fill: panel } }
            : { fill: accent, paths: uPlot.paths.bars?.({ size: [0.7, 48], gap: 1 }), points: { show: false } }),
          value: (_u, v) => show(v),
        },
      ],
      axes: [
        { ...axis, space: 60 },
        {
          ...axis,
          size: 56,
          // Whole orders: no 0.5 ticks.
          ...(currency === null ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000] } : {}),
          values: (_u, splits) => splits.map((v) => axisFormat.format(v)),
        },
      ],
    };
    const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const plot = new uPlot(options, [xs, [...values]], element);
    const resize = new ResizeObserver(() => {
      if (element.clientWidth > 0 && element.clientWidth !== plot.width)
        plot.setSize({ width: element.clientWidth, height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [label, days, values, currency, kind, height, dark]);

  return <div ref={box} className="dash-chart" role="img" aria-label={props.summary} />;
}
