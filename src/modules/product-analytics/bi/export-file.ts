// An export's file: the rows of a query, chunk by chunk, through csv-stringify (or JSON lines) into asset
// storage. Memory holds one chunk and the stream buffers: each row is written only while the stream
// accepts more, else the writer waits for 'drain' (backpressure from the storage's disk writes).
import { once } from 'node:events';
import { Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { AssetStorage } from '../../assets/storage/storage.ts';
import type { ExportFormat } from './export-tables.ts';
import type { ResultValue } from './run-query.ts';

/** Largest export file: far beyond 1,000,000 rows of any template (the storage refuses more). */
export const MAX_EXPORT_BYTES = 8 * 1024 ** 3;

type Row = Record<string, ResultValue>;

/**
 * Rows in, text out: CSV with a header row (RFC 4180 quoting) or one JSON object per line. This is the
 * service's only CSV writer: any other must use the same options.
 */
export function rowFormatter(format: ExportFormat, columns: string[]): Transform {
  if (format === 'csv') {
    return stringify({
      header: true,
      columns,
      // csv-stringify writes true as 1 and false as an empty field by default; say what they are.
      cast: { boolean: (value) => (value ? 'true' : 'false') },
      // Spreadsheet formula injection: a text cell starting with = + - @, a tab or a carriage return (or
      // their fullwidth forms) gets a leading ' so a spreadsheet shows it as text. Text from public ingest
      // (an object_id) reaches exports. Numbers are left alone, so -5 stays a number.
      escape_formulas: true,
    });
  }
  return new Transform({
    writableObjectMode: true,
    transform(row: Row, _encoding, callback) {
      const ordered: Row = {};
      for (const name of columns) ordered[name] = row[name] ?? null;
      callback(null, `${JSON.stringify(ordered)}\n`);
    },
  });
}

export interface WrittenFile {
  rowCount: number;
  sizeBytes: number;
  sha256: string;
}

/**
 * Streams every chunk's rows to `key` in storage. Stops at the signal (the partial file is removed by the
 * storage, as on any failure). Resolves once the whole file is stored.
 */
export async function writeExportFile(
  storage: AssetStorage,
  key: string,
  file: { format: ExportFormat; columns: string[] },
  chunks: AsyncIterable<Row[]>,
  signal: AbortSignal,
): Promise<WrittenFile> {
  const out = rowFormatter(file.format, file.columns);
  const stored = storage.write(key, out, MAX_EXPORT_BYTES);
  // A storage failure stops a wait for 'drain' that would never come (once() removes its listeners).
  const storageFailed = new AbortController();
  stored.catch((error) => storageFailed.abort(error));
  const stop = AbortSignal.any([signal, storageFailed.signal]);
  let rowCount = 0;
  try {
    for await (const rows of chunks) {
      stop.throwIfAborted();
      for (const row of rows) {
        if (!out.write(row)) await once(out, 'drain', { signal: stop });
      }
      rowCount += rows.length;
    }
    out.end();
  } catch (error) {
    out.destroy();
    // The storage's own error says more than the abort it caused.
    const storageError = await stored.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    throw signal.aborted || storageError === undefined ? error : storageError;
  }
  const { sizeBytes, sha256 } = await stored;
  return { rowCount, sizeBytes, sha256 };
}
