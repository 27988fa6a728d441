// BI exports: a saved query's rows as a CSV or JSON-lines file. create_bi_export answers at once (202) with
// the export queued and its run; the job (export-job.ts) writes the file into asset storage. Every read of
// a completed export carries a fresh signed download URL. Renames and archives go through update_bi_object /
// archive_bi_object, which call updateBiExport / archiveBiExport.
import { type Static, Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation, type OperationDefinition } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType, type RecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { findBiRun } from './bi-run-store.ts';
import { BiRunSchema } from './bi-schemas.ts';
import { findQuery } from './bi-store.ts';
import { EXPORT_JOB, EXPORT_RUN_TYPE } from './export-job.ts';
import { type BiExport, BiExportSchema, EXPORT_FORMATS } from './export-schemas.ts';
import {
  type ExportRow,
  findExport,
  findExportOfRun,
  insertExport,
  listExports,
  toBiExport,
  updateExportRow,
  withDownloads,
} from './export-store.ts';
import type { BiExportsTable } from './export-tables.ts';
import { attachBiRun } from './run-query.ts';

const RECORD = 'bi_export';

export const biExportRecord = defineRecordType({
  type: RECORD,
  module: 'product_analytics_bi',
  table: 'bi_exports',
  collection: '/v1/bi/exports',
  key: 'export',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  load: async (db, workspaceId, id, now, publicUrl) => {
    const row = await findExport(db, workspaceId, id);
    return row && (await withDownloads(db, [row], { publicUrl, now }))[0];
  },
  schema: BiExportSchema,
  toResource: toBiExport,
});

const name = Type.String({ minLength: 1, maxLength: 200, description: 'What the file holds.' });
const queryId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'A saved query (list_bi_queries).',
});

/** The export as a read shows it: a fresh download URL when it has a file. */
async function present(ctx: OperationContext, row: ExportRow): Promise<BiExport> {
  const [signed] = await withDownloads(ctx.db, [row], { publicUrl: ctx.config.publicUrl, now: ctx.now });
  return toBiExport(signed!);
}

export const createBiExport = defineOperation({
  name: 'create_bi_export',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  starts: { runType: EXPORT_RUN_TYPE, job: EXPORT_JOB },
  summary: 'Export a saved BI query to a file',
  description:
    'Exports every row of a saved query (query_id from run_bi_query / list_bi_queries; up to 1,000,000 rows, ' +
    'without the 1,000-row interactive limit) as csv (header row, RFC 4180 quoting) or jsonl. Answers at ' +
    'once (202) with the export queued and its BI run; a background job writes the file as an asset. Poll ' +
    'GET /v1/bi/exports/{id} (or get_record type bi_export): once completed it has row_count, size_bytes, ' +
    'checksum_sha256, asset_id and a signed download URL, fresh on each read. Rows come in group-key order.',
  input: Strict({ name, format: Enum(EXPORT_FORMATS), query_id: queryId }),
  rest: { method: 'POST', path: '/v1/bi/exports' },
  responseKey: 'export',
  response: Type.Object({ export: BiExportSchema, run: BiRunSchema }),
  handler: async (ctx, input) => {
    const query = await findQuery(ctx.db, ctx.workspaceId, input.query_id);
    if (!query) throw notFound('saved query');
    const id = newId('biexp');
    const run = await ctx.startRun({
      inputSummary: { export_id: id, query_id: query.id, format: input.format },
      payload: { export_id: id },
    });
    const row: BiExportsTable = {
      workspace_id: ctx.workspaceId,
      id,
      name: input.name,
      format: input.format,
      query_id: query.id,
      run_id: run.id,
      asset_id: null,
      row_count: null,
      size_bytes: null,
      checksum_sha256: null,
      created_by: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await insertExport(ctx.db, row);
    const related = [
      { type: RECORD, id },
      { type: 'bi_query', id: query.id },
    ];
    await attachBiRun(ctx.db, ctx.workspaceId, run.id, related, ctx.now);
    ctx.audit({ targetType: RECORD, targetId: id, changedFields: inputFields(input) });
    const created = toBiExport({
      ...row,
      status: run.status,
      attempts: run.attempts,
      error_code: null,
      error_message: null,
      finished_at: null,
    });
    return { body: { export: created, run: { ...run, related, row_count: null } }, createdId: run.id };
  },
  // A retry with the same idempotency_key answers the export that run made, as it is now.
  replay: async (ctx, run) => {
    const row = await findExportOfRun(ctx.db, ctx.workspaceId, String(run.id));
    if (!row) throw notFound('BI export');
    return { export: await present(ctx, row), run: await findBiRun(ctx.db, ctx.workspaceId, row.run_id) };
  },
});

export const listBiExports = defineOperation({
  name: 'list_bi_exports',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'List BI exports',
  description:
    'Lists exports newest first with their status (queued, running, completed, failed with error), attempts, ' +
    'row_count, size and checksum; a completed one carries a fresh signed download URL (valid 15 minutes). ' +
    'Filter by query_id (the exports of one saved query). Archived exports are not listed.',
  input: Strict({ query_id: Type.Optional(queryId), ...pageInput }),
  rest: { method: 'GET', path: '/v1/bi/exports' },
  responseKey: 'exports',
  handler: async (ctx, input) => {
    const page = await listExports(ctx.db, ctx.workspaceId, input, pageRequest('list_bi_exports', input));
    const rows = await withDownloads(ctx.db, page.items, { publicUrl: ctx.config.publicUrl, now: ctx.now });
    return { body: listBody('exports', { ...page, items: rows.map(toBiExport) }) };
  },
});

/** What update_bi_object may change on an export (validated strictly by that operation). */
export const BiExportUpdate = Strict({ name: Type.Optional(name) });
export type BiExportPatch = Static<typeof BiExportUpdate>;

/** Renames a live export of this workspace (update_bi_object); the file keeps its name. */
export async function updateBiExport(
  ctx: OperationContext,
  id: string,
  patch: BiExportPatch,
): Promise<{ export: BiExport; changed: string[] }> {
  requireSomeField(patch, ['name']);
  const row = await findExport(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('BI export');
  const { changes, changed } = diffFields<BiExportsTable>(row, { name: patch.name }, ['name'] as const);
  if (changed.length === 0) return { export: await present(ctx, row), changed };
  const set = { ...changes, updated_at: ctx.now };
  await updateExportRow(ctx.db, ctx.workspaceId, id, set);
  ctx.audit({ targetType: RECORD, targetId: id, changedFields: changed });
  return { export: await present(ctx, { ...row, ...set }), changed };
}

/** Archives an export (archive_bi_object): gone from list_bi_exports and lookups; archiving again changes nothing. */
export async function archiveBiExport(ctx: OperationContext, id: string): Promise<BiExport> {
  const row = await findExport(ctx.db, ctx.workspaceId, id);
  if (!row) throw notFound('BI export');
  if (row.archived_at) {
    ctx.audit({ targetType: RECORD, targetId: id, changedFields: [] });
    return toBiExport(row);
  }
  const set = { archived_at: ctx.now, updated_at: ctx.now };
  await updateExportRow(ctx.db, ctx.workspaceId, id, set);
  ctx.audit({ targetType: RECORD, targetId: id, changedFields: ['archived_at'] });
  return toBiExport({ ...row, ...set });
}

export const exportOperations: OperationDefinition[] = [createBiExport, listBiExports];
export const exportRecordTypes: RecordType[] = [biExportRecord];
