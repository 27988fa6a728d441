// Tables with a caption (their accessible name) and a CSV download of exactly the rows they show.
import type { ComponentChildren } from 'preact';
import { downloadCsv, slug } from '../format.ts';

export interface Column<Row> {
  key: string;
  label: string;
  /** Right-aligned (numbers). */
  numeric?: boolean;
  render?: (row: Row) => ComponentChildren;
  /** The CSV value, when the cell shows something else (a link, a list). */
  csv?: (row: Row) => unknown;
}

export function CsvButton<Row>({
  name,
  columns,
  rows,
}: {
  name: string;
  columns: Column<Row>[];
  rows: Row[];
}) {
  const save = () =>
    downloadCsv(
      slug(name),
      columns.map((c) => c.key),
      rows.map((row) =>
        Object.fromEntries(
          columns.map((c) => [c.key, c.csv ? c.csv(row) : (row as Record<string, unknown>)[c.key]]),
        ),
      ),
    );
  return (
    <button type="button" class="secondary" onClick={save} aria-label={`Download CSV: ${name}`}>
      Download CSV
    </button>
  );
}

export function DataTable<Row>({
  caption,
  columns,
  rows,
  csv = true,
  rowKey,
}: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  csv?: boolean;
  rowKey?: (row: Row, index: number) => string;
}) {
  return (
    <div class="table-block">
      {csv && (
        <div class="table-tools">
          <CsvButton name={caption} columns={columns} rows={rows} />
        </div>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section class="table-scroll" aria-label={caption} tabIndex={0}>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" key={c.key} class={c.numeric ? 'num' : undefined}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={rowKey ? rowKey(row, i) : i}>
                {columns.map((c) => (
                  <td key={c.key} class={c.numeric ? 'num' : undefined}>
                    {c.render ? c.render(row) : String((row as Record<string, unknown>)[c.key] ?? '—')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
