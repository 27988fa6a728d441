// Queries of BI exports. An export's status, attempts and error are those of its run (the runs table),
// joined on read so they never disagree; a completed export's download URL is signed afresh on each read.
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { RunStatus } from '../../../core/run-resource.ts';
import type { DB } from '../../../db/tables.ts';
import { signedUrl, signingKey } from '../../assets/signing.ts';
import { type BiExport, CONTENT_TYPES, type ExportDownload } from './export-schemas.ts';
import type { BiExportsTable } from './export-tables.ts';

/** How long a download URL stays valid: a read issues a new one, so it can be short. */
export const DOWNLOAD_URL_SECONDS = 15 * 60;

/** An export's row with its run's state, and its download URL when it has a file. */
export interface ExportRow extends BiExportsTable {
  status: RunStatus;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  finished_at: string | null;
  download?: ExportDownload | null;
}

function withRun(db: Kysely<DB>, workspaceId: string) {
  return db
    .selectFrom('bi_exports as e')
    .innerJoin('runs as r', (join) =>
      join.onRef('r.workspace_id', '=', 'e.workspace_id').onRef('r.id', '=', 'e.run_id'),
    )
    .selectAll('e')
    .select(['r.status', 'r.attempts', 'r.error_code', 'r.error_message', 'r.finished_at'])
    .where('e.workspace_id', '=', workspaceId);
}

export function toBiExport(row: ExportRow): BiExport {
  const failed = row.status === 'failed' && row.error_code !== null;
  return {
    id: row.id,
    name: row.name,
    format: row.format,
    content_type: CONTENT_TYPES[row.format],
    query_id: row.query_id,
    status: row.status,
    run_id: row.run_id,
    attempts: Number(row.attempts),
    error: failed ? { code: row.error_code!, message: row.error_message ?? '' } : null,
    row_count: row.row_count === null ? null : Number(row.row_count),
    size_bytes: row.size_bytes === null ? null : Number(row.size_bytes),
    checksum_sha256: row.checksum_sha256,
    asset_id: row.asset_id,
    download: row.download ?? null,
    // The run that made the current file finished when the file was complete.
    completed_at: row.asset_id ? row.finished_at : null,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

/** Adds a fresh signed download URL (expiring) to each row that has a file. */
export async function withDownloads(
  db: Kysely<DB>,
  rows: ExportRow[],
  urls: { publicUrl: string; now: string },
): Promise<ExportRow[]> {
  if (!rows.some((r) => r.asset_id)) return rows;
  const key = await signingKey(db);
  const expiresAt = new Date(Date.parse(urls.now) + DOWNLOAD_URL_SECONDS * 1000);
  return rows.map((row) => {
    if (!row.asset_id) return { ...row, download: null };
    const asset = { workspace_id: row.workspace_id, id: row.asset_id };
    const { url, expires_at } = signedUrl(urls.publicUrl, key, 'download', asset, expiresAt);
    return { ...row, download: { url, method: 'GET' as const, expires_at } };
  });
}

/** One export of the workspace (archived ones too: callers decide), with its run's state. */
export function findExport(db: Kysely<DB>, workspaceId: string, id: string): Promise<ExportRow | undefined> {
  return withRun(db, workspaceId).where('e.id', '=', id).executeTakeFirst() as Promise<ExportRow | undefined>;
}

/** The export a run was started for (an idempotent replay of create_bi_export answers it). */
export function findExportOfRun(db: Kysely<DB>, workspaceId: string, runId: string) {
  return withRun(db, workspaceId).where('e.run_id', '=', runId).executeTakeFirst() as Promise<
    ExportRow | undefined
  >;
}

export async function insertExport(db: Kysely<DB>, row: BiExportsTable): Promise<void> {
  await db.insertInto('bi_exports').values(row).execute();
}

/** Live exports, newest first (one query with their runs). */
export async function listExports(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query_id?: string },
  page: PageRequest,
) {
  let query = withRun(db, workspaceId).where('e.archived_at', 'is', null);
  if (filters.query_id) query = query.where('e.query_id', '=', filters.query_id);
  const result = await fetchPage(query as never, page, 'e.id');
  return { ...result, items: result.items as ExportRow[] };
}

export async function updateExportRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiExportsTable>,
): Promise<void> {
  await db
    .updateTable('bi_exports')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
