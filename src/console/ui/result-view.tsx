// A BI result (columns and rows, as run_bi_query, reports and insight views return them) as a chart in its
// report style and the table of the same rows, with the CSV of those rows.
import { cell, count } from '../format.ts';
import { Chart } from './chart.tsx';
import { Empty } from './states.tsx';
import { DataTable } from './table.tsx';

export interface ResultColumn {
  name: string;
  type: string;
  role: 'dimension' | 'time' | 'measure';
}
export interface Result {
  columns: ResultColumn[];
  rows: Record<string, unknown>[];
  row_count: number;
  truncated: boolean;
}

const numeric = (value: unknown) =>
  typeof value === 'number' ? value : value == null ? null : Number(value);

export function ResultView({
  result,
  title,
  style = 'bar',
}: {
  result: Result;
  title: string;
  style?: string;
}) {
  if (result.rows.length === 0)
    return (
      <Empty>
        <p>No rows. Widen the time range or remove a filter.</p>
      </Empty>
    );
  const measures = result.columns.filter((c) => c.role === 'measure');
  const time = result.columns.find((c) => c.role === 'time' || c.type === 'timestamp');
  const labels = result.columns.filter((c) => c !== time && !measures.includes(c));
  const chartable = style !== 'table' && measures.length > 0;
  const label = (row: Record<string, unknown>) =>
    labels.map((c) => cell(row[c.name], c.type)).join(' · ') || 'All';
  return (
    <div class="chart-block">
      {style === 'number' && measures[0] ? (
        <p class="big-number">
          {count(numeric(result.rows[0]![measures[0].name]))}
          <small>{measures[0].name}</small>
        </p>
      ) : chartable && time && labels.length === 0 ? (
        <Chart
          title={title}
          kind="time"
          style={style === 'area' ? 'area' : style === 'line' ? 'line' : 'bar'}
          x={result.rows.map((r) => Date.parse(String(r[time.name])))}
          series={measures.map((m) => ({
            label: m.name,
            values: result.rows.map((r) => numeric(r[m.name])),
          }))}
        />
      ) : chartable ? (
        <Chart
          title={title}
          kind="category"
          style={style === 'line' ? 'line' : style === 'area' ? 'area' : 'bar'}
          x={result.rows.map((_, i) => i)}
          labels={result.rows.map(label)}
          series={measures.map((m) => ({
            label: m.name,
            values: result.rows.map((r) => numeric(r[m.name])),
          }))}
        />
      ) : null}
      <DataTable
        caption={`${title}${result.truncated ? ' (first rows only)' : ''}`}
        columns={result.columns.map((c) => ({
          key: c.name,
          label: c.name,
          numeric: c.role === 'measure',
          render: (row: Record<string, unknown>) => cell(row[c.name], c.type),
        }))}
        rows={result.rows}
      />
    </div>
  );
}
