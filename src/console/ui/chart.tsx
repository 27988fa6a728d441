// Charts drawn with uPlot (canvas). The chart is an image named by its title; the table beside it (every
// chart has one) carries the same numbers for screen readers, keyboards and the CSV download.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { theme } from '../theme.ts';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

export interface ChartProps {
  title: string;
  /** time: x holds epoch milliseconds; category: labels name the bars. */
  kind: 'time' | 'category';
  x: number[];
  labels?: string[];
  series: ChartSeries[];
  /** line (default for time), bar (default for categories) or area. */
  style?: 'line' | 'bar' | 'area';
  height?: number;
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function options(props: ChartProps, width: number): uPlot.Options {
  const style = props.style ?? (props.kind === 'time' ? 'line' : 'bar');
  const fg = cssVar('--fg-muted');
  const grid = cssVar('--grid');
  const palette = [1, 2, 3, 4].map((i) => cssVar(`--chart-${i}`));
  const bars = uPlot.paths.bars!({ size: [0.6, 64] });
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  return {
    width,
    height: props.height ?? 240,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: {
        time: props.kind === 'time',
        // Half a step of room at each end, so the first and last bars are whole.
        range: (_u, min, max) => {
          const step = props.kind === 'time' ? ((props.x[1] ?? 0) - (props.x[0] ?? 0)) / 1000 || 3600 : 1;
          return style === 'bar' ? [min - step / 2, max + step / 2] : [min, max];
        },
      },
    },
    axes: [
      props.kind === 'category'
        ? { ...axis, values: (_u, ticks) => ticks.map((t) => props.labels?.[t] ?? '') }
        : axis,
      { ...axis, size: 80 },
    ],
    series: [
      {},
      ...props.series.map((s, i) => ({
        label: s.label,
        stroke: palette[i % palette.length],
        fill: style === 'line' ? undefined : `${palette[i % palette.length]}55`,
        width: 2,
        paths: style === 'bar' ? bars : undefined,
        points: { show: props.x.length < 60 },
      })),
    ],
  };
}

export function Chart(props: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const dark = theme.value; // redraw with the theme's colours
  const shape = JSON.stringify([props.kind, props.style, props.x, props.labels, props.series]);
  // Redrawn when the data (shape) or the theme changes, not on every render.
  useEffect(() => {
    const element = host.current!;
    const x = props.kind === 'time' ? props.x.map((ms) => ms / 1000) : props.x;
    const data = [x, ...props.series.map((s) => s.values)] as uPlot.AlignedData;
    const plot = new uPlot(options(props, element.clientWidth || 600), data, element);
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: element.clientWidth, height: plot.height }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [shape, dark]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div
        ref={host}
        class="chart-canvas"
        role="img"
        aria-label={`Chart: ${props.title}. The table below lists the same numbers.`}
      />
    </figure>
  );
}
