// propose_data_agent_dataset (MCP-only workflow, issue 13 item 10): an agent proposes a governed dataset in
// one transaction: the next version (proposed), its manifest, lineage from its sources, and a proposed
// decision to approve it. Nothing is approved here: approve_data_agent_decision does that, explicitly.
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { newId } from '../../../core/ids.ts';
import { Strict } from '../../../core/schema.ts';
import { DatasetManifestSchema, DatasetVersionSchema } from './dataset-version-schemas.ts';
import { type DatasetVersion, type Snapshot, takeSnapshot } from './dataset-version-store.ts';
import { snapshotDefinition, snapshotInput, writeVersion } from './dataset-versions.ts';
import { insertDecision, listDecisions, toDecision } from './decision-store.ts';
import type { DataAgentDecisionsTable } from './governed-tables.ts';
import { LineageEdgeSchema } from './job-schemas.ts';
import { edgesTouching } from './lineage-store.ts';
import { manifestOfVersion, toDatasetManifest } from './manifest-store.ts';
import { manifestFields, writeManifest } from './manifests.ts';
import { DecisionSchema } from './records-schemas.ts';
import { listSourceObjects } from './source-object-store.ts';

const firstPage = { operation: 'propose_data_agent_dataset', filters: {} };
const credentialOf = (ctx: OperationContext) => ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null;

/** The proposed decision whose approval approves the version (its subject). */
function approvalDecision(ctx: OperationContext, version: DatasetVersion, manifestId: string) {
  const row: DataAgentDecisionsTable = {
    workspace_id: ctx.workspaceId,
    id: newId('dad'),
    title: `Approve ${version.dataset_key} version ${version.version}`,
    context:
      `Proposed dataset version ${version.version} of ${version.dataset_key}: ${version.row_count} rows, ` +
      `${version.columns.length} columns, checksum ${version.checksum}.` +
      (version.description ? `\n\n${version.description}` : ''),
    options: JSON.stringify([
      {
        key: 'approve',
        description: `Approve version ${version.version} as the governed ${version.dataset_key}.`,
      },
      { key: 'reject', description: 'Keep the current approved version (if any); this one stays proposed.' },
    ]),
    chosen_option: 'approve',
    rationale: null,
    subject_type: 'data_agent_dataset_version',
    subject_id: version.id,
    related_objects: JSON.stringify([{ type: 'data_agent_dataset_manifest', id: manifestId }]),
    supersedes_id: null,
    superseded_by_id: null,
    status: 'proposed',
    decision_note: null,
    decided_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  return row;
}

export const proposeDataset = defineOperation({
  name: 'propose_data_agent_dataset',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_dataset_version',
  summary: 'Propose a governed dataset version for approval',
  description:
    "Proposes a governed dataset in one transaction: snapshots the dataset key (a BI template or custom dataset; query optional) as its next version in status proposed, writes the version's manifest (description; owner defaults to the caller; tags, freshness, column docs, source objects: default the source objects registered for this dataset key), records lineage from its sources (version derived_from the dataset, reads each source object) and a proposed decision whose approval (approve_data_agent_decision) approves the version. Returns all of them. MCP-only workflow. Emits the created events of the version, manifest and decision.",
  input: Strict({
    ...snapshotInput,
    description: Type.String({ minLength: 1, maxLength: 2_000, description: 'What the dataset is for.' }),
    ...manifestFields,
    owner: Type.Optional(manifestFields.owner),
  }),
  rest: null,
  responseKey: 'dataset_version',
  response: Type.Object({
    dataset_version: DatasetVersionSchema,
    manifest: DatasetManifestSchema,
    lineage_edges: Type.Array(LineageEdgeSchema),
    decision: DecisionSchema,
  }),
  heavyRead: (ctx, input) =>
    takeSnapshot(ctx.db, ctx.workspaceId, snapshotDefinition(input), {
      dialect: ctx.dialect,
      now: ctx.now,
      credentialId: credentialOf(ctx),
    }),
  handler: async (ctx, input, snapshot: Snapshot) => {
    const { version, edges } = await writeVersion(ctx, snapshot, {
      description: input.description,
      jobId: null,
      createdBy: credentialOf(ctx),
    });
    const sourceIds =
      input.source_object_ids ??
      (
        await listSourceObjects(
          ctx.db,
          ctx.workspaceId,
          { kind: 'bi_dataset', dataset_key: input.dataset_key },
          {
            ...firstPage,
            limit: 50,
          },
        )
      ).items.map((s) => s.id);
    const { manifest, edges: read } = await writeManifest(ctx, version, {
      ...input,
      owner: input.owner ?? ctx.actor.name,
      source_object_ids: sourceIds,
    });
    const row = approvalDecision(ctx, version, manifest.id);
    await insertDecision(ctx.db, row);
    const decision = toDecision(row);
    ctx.audit({
      targetType: 'data_agent_decision',
      targetId: row.id,
      action: 'create',
      changedFields: ['title', 'context', 'options', 'chosen_option', 'subject', 'related_objects'],
    });
    ctx.emit({
      name: 'data_agent_decision.created',
      targetType: 'data_agent_decision',
      targetId: row.id,
      data: decision,
    });
    return {
      body: { dataset_version: version, manifest, lineage_edges: [...edges, ...read], decision },
      createdId: version.id,
    };
  },
  replay: async (ctx, record) => {
    const version = record as DatasetVersion;
    const manifestRow = await manifestOfVersion(ctx.db, ctx.workspaceId, version.id);
    const about = { subject_type: 'data_agent_dataset_version', subject_id: version.id };
    const [decision] = (await listDecisions(ctx.db, ctx.workspaceId, about, { ...firstPage, limit: 1 }))
      .items;
    const edges = await edgesTouching(
      ctx.db,
      ctx.workspaceId,
      { type: 'dataset_version', id: version.id },
      100,
    );
    return {
      dataset_version: version,
      manifest: manifestRow ? toDatasetManifest(manifestRow) : null,
      lineage_edges: edges,
      decision: decision ?? null,
    };
  },
});
