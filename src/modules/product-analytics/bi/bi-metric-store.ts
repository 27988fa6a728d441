// Metrics: stored with their expression and the SQL it compiles to; loaded for queries under governance.
// Governance: an approved metric is usable by everyone; a draft only by the credential that created it;
// a deprecated or archived one by no one (validation_failed naming measures[i].metric).
import { type Kysely, sql } from 'kysely';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { DB } from '../../../db/tables.ts';
import type { BiMetricsTable, MetricStatus } from './bi-tables.ts';
import type { ResolvedDataset, ResolvedMetric } from './compile-query.ts';
import { compileMetric, type MetricAst, parseMetric } from './metric-expression.ts';
import type { QueryDefinition } from './query-definition.ts';
import type { BiColumn } from './templates.ts';

export function toBiMetric(row: BiMetricsTable) {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    dataset_key: row.dataset_key,
    expression: row.expression,
    format: row.format,
    time_column: row.time_column,
    synonyms: JSON.parse(row.synonyms) as string[],
    example_questions: JSON.parse(row.example_questions) as string[],
    status: row.status,
    sql: row.compiled_sql,
    sql_parameters: JSON.parse(row.sql_parameters) as (string | number | boolean | null)[],
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * The deterministic SQL of a metric: its expression over its dataset, addressed by key (the dataset's own
 * definition is its template's source), compiled for this database; values as parameters, listed.
 */
export function metricSql(
  db: Kysely<DB>,
  ast: MetricAst,
  columns: ReadonlyMap<string, BiColumn>,
  datasetKey: string,
  metricKey: string,
): { sql: string; parameters: unknown[] } {
  const compiled = (db as unknown as Kysely<any>)
    .selectFrom(sql`${sql.table(datasetKey)}`.as('t'))
    .select(compileMetric(ast, columns, (c) => sql.ref(`t.${c}`)).as(metricKey))
    .compile();
  return { sql: compiled.sql, parameters: [...compiled.parameters] };
}

export async function insertMetric(db: Kysely<DB>, row: BiMetricsTable) {
  await db.insertInto('bi_metrics').values(row).execute();
  return toBiMetric(row);
}

export async function metricKeyTaken(db: Kysely<DB>, workspaceId: string, key: string) {
  const row = await db
    .selectFrom('bi_metrics')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

export async function listMetrics(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { dataset_key?: string; status?: MetricStatus },
  page: PageRequest,
) {
  let query = db
    .selectFrom('bi_metrics')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.dataset_key) query = query.where('dataset_key', '=', filters.dataset_key);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toBiMetric) };
}

/** Sets a metric's status (update_bi_object approves or deprecates through it). False when absent. */
export async function setMetricStatus(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  status: MetricStatus,
  now: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('bi_metrics')
    .set({ status, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * The metrics a definition's measures name, checked: they exist, belong to the dataset (or its template)
 * and the caller may use them. `credentialId` is the caller; a draft is usable only by its creator.
 */
export async function loadQueryMetrics(
  db: Kysely<DB>,
  workspaceId: string,
  definition: QueryDefinition,
  dataset: ResolvedDataset,
  credentialId: string | null,
): Promise<Map<string, ResolvedMetric>> {
  const wanted = (definition.measures ?? []).map((m, i) => ({ key: m.metric, i })).filter((m) => m.key);
  const metrics = new Map<string, ResolvedMetric>();
  if (!wanted.length) return metrics;
  const rows = await db
    .selectFrom('bi_metrics')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', 'in', [...new Set(wanted.map((m) => m.key!))])
    .where('archived_at', 'is', null)
    .execute();
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const errors: FieldError[] = [];
  for (const { key, i } of wanted) {
    const field = `measures[${i}].metric`;
    const row = byKey.get(key!);
    if (!row) {
      errors.push({ field, message: `is not a metric of this workspace: ${key}` });
    } else if (row.dataset_key !== dataset.key && row.dataset_key !== dataset.template.key) {
      errors.push({ field, message: `belongs to the dataset ${row.dataset_key}, not ${dataset.key}` });
    } else if (row.status === 'deprecated') {
      errors.push({ field, message: `is deprecated: ${key}` });
    } else if (row.status === 'draft' && (credentialId === null || row.created_by !== credentialId)) {
      errors.push({
        field,
        message: `is a draft metric: only its creator may use it until it is approved (${key})`,
      });
    } else {
      const parsed = parseMetric(row.expression, field);
      if ('error' in parsed) errors.push(parsed.error);
      else metrics.set(row.key, { id: row.id, key: row.key, ast: parsed.ast, format: row.format });
    }
  }
  if (errors.length) throw validationFailed(errors);
  return metrics;
}
