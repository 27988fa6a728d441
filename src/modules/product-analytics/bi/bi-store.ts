// Queries of custom datasets and saved queries. Every query filters by workspace_id; archived rows
// (archived_at set, by archive_bi_object) are hidden from reads and from dataset_key resolution.
import type { Kysely } from 'kysely';
import { validationFailed } from '../../../core/errors.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { DB } from '../../../db/tables.ts';
import type { BiDatasetsTable, BiQueriesTable } from './bi-tables.ts';
import type { ResolvedDataset } from './compile-query.ts';
import type { Filter, QueryDefinition } from './query-definition.ts';
import { type BiColumn, findTemplate } from './templates.ts';

/** A custom dataset's columns: the template's chosen ones, in the template's order, with its descriptions. */
export function datasetColumns(
  row: Pick<BiDatasetsTable, 'template_key' | 'columns' | 'column_descriptions'>,
) {
  const template = findTemplate(row.template_key);
  if (!template) throw new Error(`BI dataset over unknown template ${row.template_key}`);
  const chosen = new Set(JSON.parse(row.columns) as string[]);
  const described = JSON.parse(row.column_descriptions) as Record<string, string>;
  const columns: BiColumn[] = template.columns
    .filter((c) => chosen.has(c.name))
    .map((c) => ({ ...c, description: described[c.name] ?? c.description }));
  return { template, columns };
}

export function toBiDataset(row: BiDatasetsTable) {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    template_key: row.template_key,
    columns: datasetColumns(row).columns,
    filters: JSON.parse(row.filters) as Filter[],
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toBiQuery(row: BiQueriesTable) {
  return {
    id: row.id,
    name: row.name,
    dataset_key: row.dataset_key,
    definition: JSON.parse(row.definition) as QueryDefinition,
    created_by: row.created_by,
    last_run_id: row.last_run_id,
    last_run_at: row.last_run_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A template, or an active custom dataset of the workspace; else validation_failed on `field`. */
export async function resolveDataset(
  db: Kysely<DB>,
  workspaceId: string,
  key: string,
  field = 'dataset_key',
): Promise<ResolvedDataset> {
  const template = findTemplate(key);
  if (template) return { key, id: null, template, columns: template.columns, fixedFilters: [] };
  const row = await db
    .selectFrom('bi_datasets')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  if (!row) {
    throw validationFailed([
      {
        field,
        message: `is neither a template (GET /v1/bi/templates) nor a dataset of this workspace: ${key}`,
      },
    ]);
  }
  const { template: base, columns } = datasetColumns(row);
  return { key, id: row.id, template: base, columns, fixedFilters: JSON.parse(row.filters) as Filter[] };
}

export async function datasetKeyTaken(db: Kysely<DB>, workspaceId: string, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('bi_datasets')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertDataset(db: Kysely<DB>, row: BiDatasetsTable) {
  await db.insertInto('bi_datasets').values(row).execute();
  return toBiDataset(row);
}

export async function listDatasets(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { template_key?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('bi_datasets')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.template_key) query = query.where('template_key', '=', filters.template_key);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toBiDataset) };
}

export async function insertQuery(db: Kysely<DB>, row: BiQueriesTable) {
  await db.insertInto('bi_queries').values(row).execute();
  return toBiQuery(row);
}

export async function listQueries(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { dataset_key?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('bi_queries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.dataset_key) query = query.where('dataset_key', '=', filters.dataset_key);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toBiQuery) };
}

/** A saved query of the workspace (exports and schedules run it), or undefined. */
export async function findQuery(db: Kysely<DB>, workspaceId: string, id: string) {
  const row = await db
    .selectFrom('bi_queries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return row ? toBiQuery(row) : undefined;
}

/** Points a saved query at its latest run. */
export async function setQueryLastRun(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  run: { id: string; at: string },
) {
  await db
    .updateTable('bi_queries')
    .set({ last_run_id: run.id, last_run_at: run.at, updated_at: run.at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
