// Display formats (the browser's locale and timezone) and CSV downloads of what a chart or table shows.

export const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const numberFormat = new Intl.NumberFormat();

export function when(value: string | null | undefined): string {
  return value ? dateTime.format(new Date(value)) : '—';
}

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : numberFormat.format(value);
}

/** A cell as text: numbers grouped, instants in local time, objects as JSON. */
export function cell(value: unknown, type?: string): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return type === 'money' ? numberFormat.format(value / 100) : count(value);
  if (type === 'timestamp' && typeof value === 'string') return when(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const quote = (value: unknown) => {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export function toCsv(columns: string[], rows: Record<string, unknown>[]): string {
  return [
    columns.map(quote).join(','),
    ...rows.map((row) => columns.map((c) => quote(row[c])).join(',')),
  ].join('\r\n');
}

/** Saves a Blob as a file through a temporary link (allowed by the page's CSP: no navigation elsewhere). */
export function saveFile(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadCsv(name: string, columns: string[], rows: Record<string, unknown>[]): void {
  saveFile(`${name}.csv`, new Blob([toCsv(columns, rows)], { type: 'text/csv;charset=utf-8' }));
}

/** A file-name-safe slug. */
export const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'data';
