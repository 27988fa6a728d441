// The query layer of Custom BI, for every part that runs queries (run_bi_query, dataset previews, reports,
// insight views, exports, schedules): resolve the dataset and metrics, compile, run with a row limit, or
// stream every row in chunks so an export never holds them all.
import { type Kysely, sql } from 'kysely';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import type { Dialect } from '../../../db/database.ts';
import type { DB } from '../../../db/tables.ts';
import { loadQueryMetrics } from './bi-metric-store.ts';
import { resolveDataset } from './bi-store.ts';
import {
  type CompiledBiQuery,
  compileQuery,
  type OutputColumn,
  type ResolvedDataset,
} from './compile-query.ts';
import { checkFilter, filterCondition } from './filters.ts';
import type { QueryDefinition } from './query-definition.ts';

export { attachBiRun, type BiRelated, type BiRun, recordBiRun, setBiRunRows } from './bi-run-store.ts';
export { type QueryDefinition, QueryDefinitionSchema, queryDefinitionFields } from './query-definition.ts';
export { type CompiledBiQuery, compileQuery, type OutputColumn, type ResolvedDataset };

/** Rows an export may read at most; an interactive query reads at most 1,000 (the schema's limit). */
export const MAX_EXPORT_ROWS = 1_000_000;

export type ResultValue = string | number | boolean | null;
export interface BiResult {
  columns: OutputColumn[];
  rows: Record<string, ResultValue>[];
  row_count: number;
  truncated: boolean;
}

export interface QueryOptions {
  dialect: Dialect;
  /** The call's time: relative ranges and SLA clocks are read at it. */
  now: string;
  /** Who runs it: a draft metric is usable only by its creator. */
  credentialId: string | null;
}

/** Resolves the dataset and metrics of a definition and compiles it (validation_failed on any bad name). */
export async function prepareQuery(
  db: Kysely<DB>,
  workspaceId: string,
  definition: QueryDefinition,
  options: QueryOptions,
  dataset?: ResolvedDataset,
): Promise<CompiledBiQuery> {
  const resolved = dataset ?? (await resolveDataset(db, workspaceId, definition.dataset_key));
  const metrics = await loadQueryMetrics(db, workspaceId, definition, resolved, options.credentialId);
  return compileQuery(definition, resolved, {
    db,
    dialect: options.dialect,
    workspaceId,
    now: options.now,
    metrics,
  });
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** A raw row as the API shows it: integers as numbers (PostgreSQL sends sums as text), 1/0 as booleans. */
function toResultRow(columns: OutputColumn[], raw: Record<string, unknown>): Record<string, ResultValue> {
  const row: Record<string, ResultValue> = {};
  for (const c of columns) {
    const value = raw[c.name];
    if (value === null || value === undefined) row[c.name] = null;
    else if (c.type === 'boolean') row[c.name] = Number(value) === 1;
    else if (c.type === 'integer' || c.type === 'money') row[c.name] = Number(value);
    else if (c.type === 'number') row[c.name] = round6(Number(value));
    else row[c.name] = String(value);
  }
  return row;
}

const orderBy = (name: string, direction: 'asc' | 'desc', nulls: 'first' | 'last') =>
  sql`${sql.ref(name)} ${sql.raw(direction)} ${sql.raw(`nulls ${nulls}`)}`;

/** Runs a compiled query: at most `limit` rows (truncated says whether more exist). */
export async function executeQuery(
  compiled: CompiledBiQuery,
  limit = compiled.definition.limit,
): Promise<BiResult> {
  let query = compiled.base;
  for (const o of compiled.order) query = query.orderBy(orderBy(o.name, o.direction, 'last'));
  const raw = (await query.limit(limit + 1).execute()) as Record<string, unknown>[];
  const rows = raw.slice(0, limit).map((r) => toResultRow(compiled.columns, r));
  return { columns: compiled.columns, rows, row_count: rows.length, truncated: raw.length > limit };
}

/** prepareQuery then executeQuery: what a report refresh or a preview needs in one call. */
export async function runQueryDefinition(
  db: Kysely<DB>,
  workspaceId: string,
  definition: QueryDefinition,
  options: QueryOptions & { limit?: number },
): Promise<{ compiled: CompiledBiQuery; result: BiResult }> {
  const compiled = await prepareQuery(db, workspaceId, definition, options);
  const limit = Math.min(options.limit ?? compiled.definition.limit, MAX_EXPORT_ROWS);
  return { compiled, result: await executeQuery(compiled, limit) };
}

/**
 * Every row of a compiled query (up to maxRows), in chunks: keyset pages over the group keys in ascending
 * order (nulls first), each narrowed before grouping to the keys after the last chunk's, so no chunk
 * repeats another's work and memory holds one chunk. The query's own sort does not apply.
 */
export async function* streamQueryRows(
  compiled: CompiledBiQuery,
  options: { chunkSize?: number; maxRows?: number } = {},
): AsyncGenerator<Record<string, ResultValue>[]> {
  const chunkSize = options.chunkSize ?? 5000;
  let left = Math.min(options.maxRows ?? MAX_EXPORT_ROWS, MAX_EXPORT_ROWS);
  if (!compiled.keys.length) {
    const rows = (await compiled.base.execute()) as Record<string, unknown>[];
    yield rows.slice(0, left).map((r) => toResultRow(compiled.columns, r));
    return;
  }
  let last: unknown[] | undefined;
  while (left > 0) {
    let query = compiled.base;
    if (last)
      query = query.where(
        after(
          compiled.keys.map((k) => k.expr),
          last,
        ),
      );
    for (const k of compiled.keys) query = query.orderBy(orderBy(k.name, 'asc', 'first'));
    const size = Math.min(chunkSize, left);
    const raw = (await query.limit(size).execute()) as Record<string, unknown>[];
    if (!raw.length) return;
    yield raw.map((r) => toResultRow(compiled.columns, r));
    left -= raw.length;
    if (raw.length < size) return;
    const end = raw[raw.length - 1]!;
    last = compiled.keys.map((k) => end[k.name] ?? null);
  }
}

/** Keys strictly after `values` in ascending order with nulls first (a null key sorts before any value). */
function after(exprs: Parameters<typeof sql.join>[0], values: unknown[]) {
  const build = (i: number): ReturnType<typeof sql> => {
    const e = exprs[i];
    const v = values[i];
    // The last key alone: a plain range an index on it can serve.
    if (i === exprs.length - 1) return v === null ? sql`${e} is not null` : sql`${e} > ${v}`;
    return v === null
      ? sql`(${e} is not null or (${e} is null and ${build(i + 1)}))`
      : sql`(${e} > ${v} or (${e} = ${v} and ${build(i + 1)}))`;
  };
  const first = values[0];
  // A disjunction alone is no index range: PostgreSQL then regroups every remaining row for each chunk
  // (757 s for a 1M-row export). The redundant bound on the first key gives it the range.
  if (exprs.length > 1 && first !== null)
    return sql`(${exprs[0]} >= ${first} and ${build(0)})` as ReturnType<typeof sql<boolean>>;
  return build(0) as ReturnType<typeof sql<boolean>>;
}

/**
 * The first rows of a dataset as stored (no grouping): its columns, its fixed filters, newest first by its
 * time column. What create_bi_dataset's preview shows before the dataset is saved.
 */
export async function previewRows(
  db: Kysely<DB>,
  workspaceId: string,
  dataset: ResolvedDataset,
  options: { dialect: Dialect; now: string; limit: number },
): Promise<BiResult> {
  const errors: FieldError[] = [];
  const templateColumns = new Map(dataset.template.columns.map((c) => [c.name, c]));
  const filters = dataset.fixedFilters.map((f, i) =>
    checkFilter(f, templateColumns, `filters[${i}]`, errors),
  );
  if (errors.length) throw validationFailed(errors);
  let query = (db as unknown as Kysely<any>).selectFrom(
    dataset.template.source(db, workspaceId, options.now).as('t'),
  );
  for (const f of filters)
    query = query.where(filterCondition(options.dialect, f!, sql.ref(`t.${f!.column.name}`)));
  query = query
    .orderBy(sql`${sql.ref(`t.${dataset.template.time_column}`)} desc nulls last`)
    .orderBy(sql`${sql.ref(`t.${dataset.template.columns[0]!.name}`)} asc nulls last`);
  const columns: OutputColumn[] = dataset.columns.map((c) => ({
    name: c.name,
    type: c.type,
    role: c.role === 'time' ? 'time' : c.role === 'measure' ? 'measure' : 'dimension',
    ...(c.currency_column ? { currency_column: c.currency_column } : {}),
  }));
  const raw = (await query
    .select(dataset.columns.map((c) => sql.ref(`t.${c.name}`).as(c.name)))
    .limit(options.limit + 1)
    .execute()) as Record<string, unknown>[];
  const rows = raw.slice(0, options.limit).map((r) => toResultRow(columns, r));
  return { columns, rows, row_count: rows.length, truncated: raw.length > options.limit };
}
