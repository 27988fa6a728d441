// update_bi_object and archive_bi_object on the core's objects: datasets (name, description, column
// descriptions), metrics (name, description, format, synonyms, example questions, status: approving a
// metric is {status: approved}) and saved queries (name). A metric's expression and a dataset's columns and
// filters never change: reports and numbers depend on them; create a new one and archive the old.
import { type Static, type TObject, Type } from '@sinclair/typebox';
import { diffFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { type FieldError, notFound, validationFailed } from '../../../core/errors.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import { toBiMetric } from './bi-metric-store.ts';
import {
  findDatasetRow,
  findMetricRow,
  findQueryRow,
  updateDatasetRow,
  updateMetricRow,
  updateQueryRow,
} from './bi-object-store.ts';
import { toBiDataset, toBiQuery } from './bi-store.ts';

const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]);
const phrases = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 });

export const DatasetUpdate = Strict({
  name: Type.Optional(name),
  description: Type.Optional(description),
  column_descriptions: Type.Optional(
    MapOf(Type.String({ minLength: 1, maxLength: 500 }), {
      description: 'Column name -> description; replaces the stored map.',
    }),
  ),
});

export const MetricUpdate = Strict({
  name: Type.Optional(name),
  description: Type.Optional(description),
  format: Type.Optional(Enum(['number', 'money', 'percent'] as const)),
  synonyms: Type.Optional(phrases),
  example_questions: Type.Optional(phrases),
  status: Type.Optional(
    Enum(['draft', 'approved', 'deprecated'] as const, {
      description: 'approved: usable by every credential; deprecated: by none.',
    }),
  ),
});

export const QueryUpdate = Strict({ name: Type.Optional(Type.Union([name, Type.Null()])) });

const fieldsOf = (schema: TObject) => Object.keys(schema.properties);

export async function updateDataset(ctx: OperationContext, id: string, patch: Static<typeof DatasetUpdate>) {
  requireSomeField(patch, fieldsOf(DatasetUpdate));
  const row = await findDatasetRow(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('dataset');
  const chosen = new Set(JSON.parse(row.columns) as string[]);
  const errors: FieldError[] = Object.keys(patch.column_descriptions ?? {})
    .filter((column) => !chosen.has(column))
    .map((column) => ({ field: `column_descriptions.${column}`, message: 'is not a column of the dataset' }));
  if (errors.length) throw validationFailed(errors);
  const { changes, changed } = diffFields(
    row,
    {
      ...patch,
      column_descriptions: patch.column_descriptions && JSON.stringify(patch.column_descriptions),
    },
    ['name', 'description', 'column_descriptions'],
  );
  const next = { ...row, ...changes, ...(changed.length ? { updated_at: ctx.now } : {}) };
  if (changed.length) {
    await updateDatasetRow(ctx.db, ctx.workspaceId, id, { ...changes, updated_at: ctx.now });
    ctx.audit({ targetType: 'bi_dataset', targetId: id, changedFields: changed });
  }
  return toBiDataset(next);
}

export async function updateMetric(ctx: OperationContext, id: string, patch: Static<typeof MetricUpdate>) {
  requireSomeField(patch, fieldsOf(MetricUpdate));
  const row = await findMetricRow(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('metric');
  const { changes, changed } = diffFields(
    row,
    {
      ...patch,
      synonyms: patch.synonyms && JSON.stringify(patch.synonyms),
      example_questions: patch.example_questions && JSON.stringify(patch.example_questions),
    },
    ['name', 'description', 'format', 'synonyms', 'example_questions', 'status'],
  );
  const next = { ...row, ...changes, ...(changed.length ? { updated_at: ctx.now } : {}) };
  if (changed.length) {
    await updateMetricRow(ctx.db, ctx.workspaceId, id, { ...changes, updated_at: ctx.now });
    const action = changed.includes('status') && patch.status === 'approved' ? 'approve' : undefined;
    ctx.audit({
      targetType: 'bi_metric',
      targetId: id,
      changedFields: changed,
      ...(action ? { action } : {}),
    });
  }
  return toBiMetric(next);
}

export async function updateQuery(ctx: OperationContext, id: string, patch: Static<typeof QueryUpdate>) {
  requireSomeField(patch, fieldsOf(QueryUpdate));
  const row = await findQueryRow(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('saved query');
  const { changes, changed } = diffFields(row, patch, ['name']);
  const next = { ...row, ...changes, ...(changed.length ? { updated_at: ctx.now } : {}) };
  if (changed.length) {
    await updateQueryRow(ctx.db, ctx.workspaceId, id, { ...changes, updated_at: ctx.now });
    ctx.audit({ targetType: 'bi_query', targetId: id, changedFields: changed });
  }
  return toBiQuery(next);
}

/** Archives a row (idempotent): hidden from reads and from queries that name it; history kept. */
async function archiveRow<R extends { archived_at: string | null; updated_at: string }, T>(
  ctx: OperationContext,
  id: string,
  what: { recordType: string; label: string },
  find: () => Promise<R | undefined>,
  update: (changes: { archived_at: string; updated_at: string }) => Promise<void>,
  toResource: (row: R) => T,
): Promise<{ object: T; archived_at: string }> {
  const row = await find();
  if (!row) throw notFound(what.label);
  const archived = row.archived_at !== null;
  const next = archived ? row : { ...row, archived_at: ctx.now, updated_at: ctx.now };
  if (!archived) await update({ archived_at: ctx.now, updated_at: ctx.now });
  ctx.audit({ targetType: what.recordType, targetId: id, changedFields: archived ? [] : ['archived_at'] });
  return { object: toResource(next), archived_at: next.archived_at! };
}

export const archiveDataset = (ctx: OperationContext, id: string) =>
  archiveRow(
    ctx,
    id,
    { recordType: 'bi_dataset', label: 'dataset' },
    () => findDatasetRow(ctx.db, ctx.workspaceId, id),
    (changes) => updateDatasetRow(ctx.db, ctx.workspaceId, id, changes),
    toBiDataset,
  );

export const archiveMetric = (ctx: OperationContext, id: string) =>
  archiveRow(
    ctx,
    id,
    { recordType: 'bi_metric', label: 'metric' },
    () => findMetricRow(ctx.db, ctx.workspaceId, id),
    (changes) => updateMetricRow(ctx.db, ctx.workspaceId, id, changes),
    toBiMetric,
  );

export const archiveQuery = (ctx: OperationContext, id: string) =>
  archiveRow(
    ctx,
    id,
    { recordType: 'bi_query', label: 'saved query' },
    () => findQueryRow(ctx.db, ctx.workspaceId, id),
    (changes) => updateQueryRow(ctx.db, ctx.workspaceId, id, changes),
    toBiQuery,
  );
