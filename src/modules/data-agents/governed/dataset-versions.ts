// Dataset versions (issue 13 item 2): immutable, numbered snapshots of a governed BI dataset (a template or a
// custom dataset key), proposed when taken and approved only by a decision about them (the effect registered
// below runs in approve_data_agent_decision's transaction). docs/modules/data-agents.md.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { AuditEntry, DomainEvent } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { validationFailed } from '../../../core/errors.ts';
import type { DomainEventType } from '../../../core/module.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import type { DB } from '../../../db/tables.ts';
import { DatasetKey, queryDefinitionFields } from '../../product-analytics/bi/query-definition.ts';
import { DATASET_VERSION_STATUSES, DatasetVersionSchema } from './dataset-version-schemas.ts';
import {
  approvedVersionsOf,
  type DatasetVersion,
  findDatasetVersion,
  insertNextVersion,
  listDatasetVersions,
  moveVersion,
  type Snapshot,
  takeSnapshot,
  toDatasetVersion,
} from './dataset-version-store.ts';
import { onDecisionApproved } from './decision-approval.ts';
import type { LineageEdge, NewEdge } from './lineage-store.ts';
import { insertEdges } from './lineage-store.ts';
import { statusConflict } from './records-store.ts';

export const datasetVersionRecord = defineRecordType({
  type: 'data_agent_dataset_version',
  module: 'data_agents',
  table: 'data_agent_dataset_versions',
  collection: '/v1/data-agents/dataset-versions',
  key: 'dataset_version',
  readScope: 'data_agents:read',
  schema: DatasetVersionSchema,
  toResource: toDatasetVersion,
});

export const datasetVersionEvents: DomainEventType[] = [
  {
    name: 'data_agent_dataset_version.created',
    description: 'A dataset version was snapshotted (status proposed); data is the version.',
    schema: DatasetVersionSchema,
  },
  {
    name: 'data_agent_dataset_version.status_changed',
    description:
      'A dataset version was approved (by a decision) or deprecated (a later version was approved); data is the version.',
    schema: DatasetVersionSchema,
  },
];

/** Where a version's writes go: an operation's context, or a native job's (native-runners). */
export interface VersionWriter {
  db: Kysely<DB>;
  workspaceId: string;
  now: string;
  audit(entry: AuditEntry): void;
  emit(event: DomainEvent): void;
}

const nodeOfVersion = (id: string) => ({ type: 'dataset_version', id });

/** The version's own lineage: derived from its dataset (a custom one from its template), using its metrics. */
export function versionEdges(versionId: string, snapshot: Snapshot, jobId: string | null): NewEdge[] {
  const dataset = { type: 'bi_dataset', id: snapshot.datasetKey };
  return [
    { from: nodeOfVersion(versionId), relation: 'derived_from', to: dataset, jobId },
    ...(snapshot.datasetId
      ? [
          {
            from: dataset,
            relation: 'derived_from' as const,
            to: { type: 'bi_dataset', id: snapshot.templateKey },
            jobId,
          },
        ]
      : []),
    ...snapshot.metricIds.map((id) => ({
      from: nodeOfVersion(versionId),
      relation: 'uses_metric' as const,
      to: { type: 'metric', id },
      jobId,
    })),
  ];
}

/** Writes a snapshot as the next version (proposed) with its lineage, audited and emitted. */
export async function writeVersion(
  w: VersionWriter,
  snapshot: Snapshot,
  extra: { description: string | null; jobId: string | null; createdBy: string | null },
): Promise<{ version: DatasetVersion; edges: LineageEdge[] }> {
  const row = await insertNextVersion(w.db, w.workspaceId, snapshot, { ...extra, now: w.now });
  const version = toDatasetVersion(row);
  const edges = await insertEdges(w.db, w.workspaceId, versionEdges(row.id, snapshot, extra.jobId), w.now);
  w.audit({
    targetType: 'data_agent_dataset_version',
    targetId: row.id,
    action: 'create',
    changedFields: ['dataset_key', 'version', 'columns', 'row_count', 'checksum', 'query', 'status'],
  });
  w.emit({
    name: 'data_agent_dataset_version.created',
    targetType: 'data_agent_dataset_version',
    targetId: row.id,
    data: version,
  });
  return { version, edges: edges.map((e) => e.edge) };
}

export const snapshotInput = {
  dataset_key: DatasetKey,
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000 })),
  query: Type.Optional(
    Strict(queryDefinitionFields, {
      description:
        'The governed query whose rows the version holds (run_bi_query input; limit is ignored: every row is read, at most 100,000). Default: the dataset default query. Its dataset_key must be the dataset_key.',
    }),
  ),
};

/** The definition a snapshot runs: the given query (same dataset key) or the dataset's default query. */
export function snapshotDefinition(input: { dataset_key: string; query?: { dataset_key: string } }) {
  if (input.query && input.query.dataset_key !== input.dataset_key) {
    throw validationFailed([{ field: 'query.dataset_key', message: 'must equal dataset_key' }]);
  }
  return (input.query ?? { dataset_key: input.dataset_key }) as Parameters<typeof takeSnapshot>[2];
}

export const createDatasetVersion = defineOperation({
  name: 'create_data_agent_dataset_version',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_dataset_version',
  summary: 'Snapshot a governed dataset as a new version',
  description:
    'Runs the governed query of a BI dataset (a template or custom dataset key; query optional, default the dataset default query) through the BI query layer, reads every row (at most 100,000) and stores them as the next immutable version of that key (1, 2, ...) in status proposed: column schema, row count, sha256 checksum of the canonical rows and the query as run. Records lineage (version derived_from the dataset). Approve it through a decision about it (approve_data_agent_decision). Emits data_agent_dataset_version.created.',
  input: Strict(snapshotInput),
  rest: { method: 'POST', path: '/v1/data-agents/dataset-versions' },
  responseKey: 'dataset_version',
  heavyRead: (ctx, input) =>
    takeSnapshot(ctx.db, ctx.workspaceId, snapshotDefinition(input), {
      dialect: ctx.dialect,
      now: ctx.now,
      credentialId: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
    }),
  handler: async (ctx, input, snapshot: Snapshot) => {
    const { version } = await writeVersion(ctx, snapshot, {
      description: input.description ?? null,
      jobId: null,
      createdBy: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
    });
    return { body: { dataset_version: version }, createdId: version.id };
  },
});

export const listDatasetVersionsOperation = defineOperation({
  name: 'list_data_agent_dataset_versions',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List dataset versions',
  description:
    'Lists dataset versions, newest first, by dataset_key and/or status (proposed, approved, deprecated). Use it to find the approved version of a dataset consumers should read, or the versions awaiting a decision. Each version carries its columns, row count, checksum and the query that produced it.',
  input: Strict({
    dataset_key: Type.Optional(DatasetKey),
    status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...DATASET_VERSION_STATUSES] })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/dataset-versions' },
  heavy: heavyFilters({ indexed: ['dataset_key', 'status'] }),
  responseKey: 'dataset_versions',
  handler: async (ctx, input) => {
    const page = await listDatasetVersions(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_dataset_versions', input),
    );
    return { body: listBody('dataset_versions', page) };
  },
});

const statusEvent = (version: DatasetVersion) => ({
  name: 'data_agent_dataset_version.status_changed',
  targetType: 'data_agent_dataset_version',
  targetId: version.id,
  data: version,
});

// Approving a decision about a dataset version approves the version (only a proposed one: 409 naming its
// status otherwise, which rolls the decision back) and deprecates the earlier approved versions of its key.
onDecisionApproved('data_agent_dataset_version', async (ctx, versionId, decision) => {
  const row = await findDatasetVersion(ctx.db, ctx.workspaceId, versionId);
  const needs = 'only a proposed dataset version can be approved';
  if (!row) throw statusConflict('dataset version', 'gone', needs);
  const approved = {
    status: 'approved',
    decision_id: decision.id,
    approved_at: ctx.now,
    updated_at: ctx.now,
  };
  if (!(await moveVersion(ctx.db, ctx.workspaceId, row.id, ['proposed'], approved))) {
    const current = await findDatasetVersion(ctx.db, ctx.workspaceId, row.id);
    throw statusConflict('dataset version', current?.status ?? 'gone', needs);
  }
  ctx.audit({
    targetType: 'data_agent_dataset_version',
    targetId: row.id,
    action: 'approve',
    changedFields: ['status', 'decision_id', 'approved_at'],
  });
  ctx.emit(statusEvent(toDatasetVersion({ ...row, ...approved })));
  for (const earlier of await approvedVersionsOf(ctx.db, ctx.workspaceId, row.dataset_key, row.id)) {
    const deprecated = { status: 'deprecated', deprecated_at: ctx.now, updated_at: ctx.now };
    if (!(await moveVersion(ctx.db, ctx.workspaceId, earlier.id, ['approved'], deprecated))) continue;
    ctx.audit({
      targetType: 'data_agent_dataset_version',
      targetId: earlier.id,
      action: 'deprecate',
      changedFields: ['status', 'deprecated_at'],
    });
    ctx.emit(statusEvent(toDatasetVersion({ ...earlier, ...deprecated })));
  }
});
