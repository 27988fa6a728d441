// Queries of dataset versions, and the snapshot itself: a governed BI query (the BI core's query layer)
// read whole, its rows hashed into the version's checksum. Every query filters by workspace_id.
import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { canonicalJson } from '../../../core/canonical-json.ts';
import { validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { Dialect } from '../../../db/database.ts';
import { findRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import { resolveDataset } from '../../product-analytics/bi/bi-store.ts';
import type { QueryDefinition } from '../../product-analytics/bi/query-definition.ts';
import { type OutputColumn, prepareQuery, streamQueryRows } from '../../product-analytics/bi/run-query.ts';
import type { DatasetVersionSchema, DatasetVersionStatus } from './dataset-version-schemas.ts';
import type { DataAgentDatasetVersionsTable } from './governed-tables.ts';

export type DatasetVersion = Static<typeof DatasetVersionSchema>;

/** A snapshot reads at most this many rows; a bigger one is refused (narrow the query or group it). */
export const MAX_SNAPSHOT_ROWS = 100_000;

export function toDatasetVersion(row: DataAgentDatasetVersionsTable): DatasetVersion {
  return {
    id: row.id,
    dataset_key: row.dataset_key,
    version: Number(row.version),
    template_key: row.template_key,
    dataset_id: row.dataset_id,
    description: row.description,
    status: row.status as DatasetVersionStatus,
    columns: JSON.parse(row.columns),
    row_count: Number(row.row_count),
    checksum: row.checksum,
    query: JSON.parse(row.query),
    job_id: row.job_id,
    decision_id: row.decision_id,
    created_by: row.created_by,
    approved_at: row.approved_at,
    deprecated_at: row.deprecated_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findDatasetVersion = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_dataset_versions', workspaceId, id);

/** What a snapshot read: the dataset, the definition as run, the columns, the rows' count and checksum. */
export interface Snapshot {
  datasetKey: string;
  templateKey: string;
  datasetId: string | null;
  query: Omit<QueryDefinition, 'limit'>;
  columns: OutputColumn[];
  rowCount: number;
  checksum: string;
  metricIds: string[];
}

/** sha256 of the canonical rows: each row's canonical JSON, the texts sorted, as one JSON array. */
export function rowsChecksum(rows: readonly Record<string, unknown>[]): string {
  const texts = rows.map(canonicalJson).sort();
  return createHash('sha256')
    .update(`[${texts.join(',')}]`)
    .digest('hex');
}

/**
 * Runs a governed query through the BI core and reads every row (up to MAX_SNAPSHOT_ROWS, else
 * validation_failed on `field`). Only {dataset_key} reads the dataset's default query. `db` is a
 * heavy-read executor when the caller has one.
 */
export async function takeSnapshot(
  db: Kysely<DB>,
  workspaceId: string,
  definition: QueryDefinition,
  options: { dialect: Dialect; now: string; credentialId: string | null; field?: string },
): Promise<Snapshot> {
  const dataset = await resolveDataset(
    db,
    workspaceId,
    definition.dataset_key,
    `${options.field ?? 'query'}.dataset_key`,
  );
  const compiled = await prepareQuery(db, workspaceId, definition, options, dataset);
  const rows: Record<string, unknown>[] = [];
  for await (const chunk of streamQueryRows(compiled, { maxRows: MAX_SNAPSHOT_ROWS + 1 }))
    rows.push(...chunk);
  if (rows.length > MAX_SNAPSHOT_ROWS) {
    throw validationFailed([
      {
        field: options.field ?? 'query',
        message: `reads over ${MAX_SNAPSHOT_ROWS} rows: group it (dimensions, measures) or filter it`,
      },
    ]);
  }
  const { limit: _limit, ...query } = compiled.definition;
  return {
    datasetKey: definition.dataset_key,
    templateKey: dataset.template.key,
    datasetId: dataset.id,
    query,
    columns: compiled.columns,
    rowCount: rows.length,
    checksum: rowsChecksum(rows),
    metricIds: compiled.metrics.map((m) => m.id),
  };
}

/**
 * Inserts the snapshot as the next version of its dataset key (proposed). The number is max + 1; the
 * unique (workspace_id, dataset_key, version) turns a concurrent taker of the same number into a
 * conflict that does nothing (the transaction lives on), and the insert is tried again with the next.
 */
export async function insertNextVersion(
  db: Kysely<DB>,
  workspaceId: string,
  snapshot: Snapshot,
  extra: { description: string | null; jobId: string | null; createdBy: string | null; now: string },
): Promise<DataAgentDatasetVersionsTable> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const last = await db
      .selectFrom('data_agent_dataset_versions')
      .select((eb) => eb.fn.max('version').as('version'))
      .where('workspace_id', '=', workspaceId)
      .where('dataset_key', '=', snapshot.datasetKey)
      .executeTakeFirst();
    const row: DataAgentDatasetVersionsTable = {
      workspace_id: workspaceId,
      id: newId('ddv'),
      dataset_key: snapshot.datasetKey,
      version: Number(last?.version ?? 0) + 1,
      template_key: snapshot.templateKey,
      dataset_id: snapshot.datasetId,
      description: extra.description,
      status: 'proposed',
      columns: JSON.stringify(snapshot.columns),
      row_count: snapshot.rowCount,
      checksum: snapshot.checksum,
      query: JSON.stringify(snapshot.query),
      job_id: extra.jobId,
      decision_id: null,
      created_by: extra.createdBy,
      approved_at: null,
      deprecated_at: null,
      created_at: extra.now,
      updated_at: extra.now,
    };
    const inserted = await db
      .insertInto('data_agent_dataset_versions')
      .values(row)
      .onConflict((oc) => oc.columns(['workspace_id', 'dataset_key', 'version']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return row;
  }
  throw new Error(`could not number a version of ${snapshot.datasetKey}`);
}

/** Sets `changes` when the version is still in one of `from`; false when another call moved it first. */
export async function moveVersion(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  from: readonly string[],
  changes: Partial<DataAgentDatasetVersionsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('data_agent_dataset_versions')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The approved versions of a dataset key other than `exceptId` (deprecated when a newer one is approved). */
export const approvedVersionsOf = (
  db: Kysely<DB>,
  workspaceId: string,
  datasetKey: string,
  exceptId: string,
) =>
  db
    .selectFrom('data_agent_dataset_versions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('dataset_key', '=', datasetKey)
    .where('status', '=', 'approved')
    .where('id', '!=', exceptId)
    .execute();

export async function listDatasetVersions(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { dataset_key?: string; status?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('data_agent_dataset_versions')
    .selectAll()
    .where('workspace_id', '=', workspaceId);
  if (filters.dataset_key) query = query.where('dataset_key', '=', filters.dataset_key);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toDatasetVersion) };
}
