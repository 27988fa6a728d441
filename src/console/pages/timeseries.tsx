// The timeseries of Object Analytics as a uPlot chart with its table and CSV: hourly or daily buckets in the
// browser's timezone, zero-filled as the API answers them.
import { count, when } from '../format.ts';
import { Chart } from '../ui/chart.tsx';
import { Empty, type Load, Loaded } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

interface Series {
  points: { start: string; events: number }[];
  interval: 'hour' | 'day';
  timezone: string;
}

export function Timeseries({ load, title }: { load: Load<Series> & { reload: () => void }; title: string }) {
  return (
    <Loaded load={load} what="the timeseries">
      {(data) =>
        data.points.every((p) => p.events === 0) ? (
          <Empty>
            <p>No events over time in this window.</p>
          </Empty>
        ) : (
          <div class="chart-block">
            <Chart
              title={`${title} (${data.interval === 'hour' ? 'hourly' : 'daily'}, ${data.timezone})`}
              kind="time"
              style="bar"
              x={data.points.map((p) => Date.parse(p.start))}
              series={[{ label: 'Events', values: data.points.map((p) => p.events) }]}
            />
            <DataTable
              caption={title}
              columns={[
                {
                  key: 'start',
                  label: data.interval === 'hour' ? 'Hour' : 'Day',
                  render: (p) => when(p.start),
                },
                { key: 'events', label: 'Events', numeric: true, render: (p) => count(p.events) },
              ]}
              rows={data.points}
              rowKey={(p) => p.start}
            />
          </div>
        )
      }
    </Loaded>
  );
}
