// The work of an export: run the saved query without the interactive limit (up to MAX_EXPORT_ROWS) through
// the query layer's chunked stream, write the file into asset storage, and record it as an asset and on the
// export, in the run's transaction on PostgreSQL (the run completes with them, or neither happens). Runs for
// create_bi_export's run (job bi.export) and for a scheduled refresh of an export (export-schedule-target).

import { checkAmountEntitlement } from '../../../core/billing.ts';
import { fail, notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { defineRunJob, type RunWorkContext } from '../../../core/run-job.ts';
import { assetBytesInUse, insertAsset, updateAssetRow } from '../../assets/asset-store.ts';
import { storageFor } from '../../assets/storage/configured.ts';
import { windowStart } from '../../assets/upload-lifecycle.ts';
import { findQuery } from './bi-store.ts';
import { writeExportFile } from './export-file.ts';
import { CONTENT_TYPES } from './export-schemas.ts';
import { findExport, updateExportRow } from './export-store.ts';
import type { ExportFormat } from './export-tables.ts';
import { MAX_EXPORT_ROWS, prepareQuery, setBiRunRows, streamQueryRows } from './run-query.ts';

export const EXPORT_JOB = 'bi.export';
export const EXPORT_RUN_TYPE = 'bi_export';
/** Rows read per statement: bounded memory, few round trips. */
const CHUNK_ROWS = 5000;

/** The asset's file name: the export's name with characters a file name cannot hold replaced. */
function fileName(name: string, format: ExportFormat): string {
  const safe = (c: string) => {
    const code = c.charCodeAt(0);
    return code < 32 || code === 127 || c === '/' || c === '\\' ? '_' : c;
  };
  const base = Array.from(name, safe).join('').slice(0, 240);
  return `${base}.${format}`;
}

/**
 * Writes a new file of the export from its saved query, as the run's credential (metric governance), and
 * points the export at it and at this run. A previous file (a refresh) is archived: the asset cleanup job
 * deletes its bytes.
 */
export async function produceExport(work: RunWorkContext, exportId: string) {
  const { workspaceId } = work;
  const row = await findExport(work.db, workspaceId, exportId);
  if (!row || row.archived_at) throw notFound('BI export');
  const query = await findQuery(work.db, workspaceId, row.query_id);
  if (!query) {
    throw fail('resource_not_found', {
      message: `The saved query ${row.query_id} of this export was archived or removed before it ran.`,
    });
  }
  // The service clock's time of this attempt: relative ranges (last_7_days) are read at it.
  const now = work.run.started_at ?? work.run.queued_at;
  const compiled = await prepareQuery(work.reads, workspaceId, query.definition, {
    dialect: work.dialect,
    now,
    credentialId: work.run.credential_id,
  });
  const storage = storageFor(work.config);
  const assetId = newId('ast');
  const storageKey = `${workspaceId}/${assetId}`;
  const written = await writeExportFile(
    storage,
    storageKey,
    { format: row.format, columns: compiled.columns.map((c) => c.name) },
    streamQueryRows(compiled, { chunkSize: CHUNK_ROWS, maxRows: MAX_EXPORT_ROWS }),
    work.signal,
  );
  try {
    work.signal.throwIfAborted();
    // The file is an asset like an upload: it counts toward the workspace's asset_bytes entitlement.
    await checkAmountEntitlement(work.db, work.dialect, workspaceId, {
      name: 'asset_bytes',
      adding: written.sizeBytes,
      used: () => assetBytesInUse(work.db, workspaceId, windowStart(new Date(now))),
      message: (maximum, used) =>
        `The export's file of ${written.sizeBytes} bytes would pass the workspace's asset_bytes limit of ` +
        `${maximum} bytes (${used} are stored or pending).`,
    });
    await insertAsset(work.db, {
      workspace_id: workspaceId,
      id: assetId,
      asset_type: 'document',
      file_name: fileName(row.name, row.format),
      mime_type: CONTENT_TYPES[row.format],
      size_bytes: written.sizeBytes,
      checksum_sha256: written.sha256,
      status: 'ready',
      related_resource_type: 'bi_export',
      related_resource_id: row.id,
      storage_key: storageKey,
      ready_at: now,
      archived_at: null,
      content_deleted_at: null,
      created_at: now,
      updated_at: now,
    });
    if (row.asset_id) {
      await updateAssetRow(work.db, workspaceId, row.asset_id, {
        status: 'archived',
        archived_at: now,
        updated_at: now,
      });
    }
    await updateExportRow(work.db, workspaceId, row.id, {
      run_id: work.run.id,
      asset_id: assetId,
      row_count: written.rowCount,
      size_bytes: written.sizeBytes,
      checksum_sha256: written.sha256,
      updated_at: now,
    });
    await setBiRunRows(work.db, workspaceId, work.run.id, written.rowCount);
  } catch (error) {
    // No asset row will name the file: remove it rather than leave bytes nobody can reach.
    await storage.remove(storageKey).catch(() => {});
    throw error;
  }
  return { resultRef: row.id, rowCount: written.rowCount };
}

export const exportJob = defineRunJob({
  name: EXPORT_JOB,
  // A million rows take minutes, not hours; past this the run fails with timeout.
  timeoutSeconds: 1800,
  retryLimit: 2,
  retryDelaySeconds: 30,
  work: async (work) => {
    const { export_id: exportId } = work.payload as { export_id: string };
    const { resultRef } = await produceExport(work, exportId);
    return { resultRef };
  },
});
