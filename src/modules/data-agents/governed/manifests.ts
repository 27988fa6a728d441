// Dataset manifests (issue 13 item 2): what a version means for its consumers (owner, description, tags,
// freshness expectation, column documentation, the source objects it reads). One per version; the version
// gets a `reads` lineage edge to each source object.
import { type Static, Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, fail, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import type { DomainEventType } from '../../../core/module.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { DatasetKey } from '../../product-analytics/bi/query-definition.ts';
import { DatasetManifestSchema } from './dataset-version-schemas.ts';
import type { DatasetVersion } from './dataset-version-store.ts';
import type { DataAgentDatasetManifestsTable } from './governed-tables.ts';
import { insertEdges, type LineageEdge } from './lineage-store.ts';
import {
  type DatasetManifest,
  insertManifest,
  listManifests,
  manifestOfVersion,
  toDatasetManifest,
} from './manifest-store.ts';

export const datasetManifestRecord = defineRecordType({
  type: 'data_agent_dataset_manifest',
  module: 'data_agents',
  table: 'data_agent_dataset_manifests',
  collection: '/v1/data-agents/manifests',
  key: 'manifest',
  readScope: 'data_agents:read',
  schema: DatasetManifestSchema,
  toResource: toDatasetManifest,
});

export const manifestEvents: DomainEventType[] = [
  {
    name: 'data_agent_dataset_manifest.created',
    description: 'A dataset version got its manifest; data is the manifest.',
    schema: DatasetManifestSchema,
  },
];

const idInput = Type.String({ minLength: 1, maxLength: 255 });

/** The manifest's describing fields (create_data_agent_dataset_manifest and propose_data_agent_dataset). */
export const manifestFields = {
  owner: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Who answers for the data (a team, a person).',
  }),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, uniqueItems: true }),
  ),
  freshness: Type.Optional(
    Strict(
      {
        max_age_hours: Type.Integer({ minimum: 1, maximum: 8760 }),
        note: Type.Optional(Type.String({ minLength: 1, maxLength: 1_000 })),
      },
      { description: 'Freshness expectation: consumers can count on a version at most max_age_hours old.' },
    ),
  ),
  column_docs: Type.Optional(
    Type.Array(
      Strict({
        column: Type.String({ minLength: 1, maxLength: 63, description: 'A column of the version.' }),
        description: Type.String({ minLength: 1, maxLength: 2_000 }),
      }),
      { maxItems: 100, description: 'Documentation per column; each must be a column of the version.' },
    ),
  ),
  source_object_ids: Type.Optional(
    Type.Array(idInput, {
      maxItems: 50,
      uniqueItems: true,
      description: 'Source objects (create_data_agent_source_object) the version reads; each must exist.',
    }),
  ),
};

const descriptionInput = Type.String({ minLength: 1, maxLength: 5_000 });
const ManifestBody = Strict({ description: descriptionInput, ...manifestFields });
type ManifestInput = Static<typeof ManifestBody>;

/** Writes the manifest of a version: checked, with its lineage, audited and emitted. */
export async function writeManifest(
  ctx: OperationContext,
  version: DatasetVersion,
  input: ManifestInput,
): Promise<{ manifest: DatasetManifest; edges: LineageEdge[] }> {
  const columns = new Set(version.columns.map((c) => c.name));
  const errors: FieldError[] = (input.column_docs ?? []).flatMap((doc, i) =>
    columns.has(doc.column)
      ? []
      : [{ field: `column_docs[${i}].column`, message: `is not a column of version ${version.version}` }],
  );
  const seen = new Set<string>();
  (input.column_docs ?? []).forEach((doc, i) => {
    if (seen.has(doc.column))
      errors.push({ field: `column_docs[${i}].column`, message: 'is documented twice' });
    seen.add(doc.column);
  });
  if (errors.length) throw validationFailed(errors);
  const sourceIds = input.source_object_ids ?? [];
  for (const id of sourceIds) await ctx.requireRecord('data_agent_source_object', id);
  if (await manifestOfVersion(ctx.db, ctx.workspaceId, version.id)) {
    throw fail('conflict', { message: `Version ${version.id} has a manifest already (one per version).` });
  }
  const row: DataAgentDatasetManifestsTable = {
    workspace_id: ctx.workspaceId,
    id: newId('ddm'),
    version_id: version.id,
    dataset_key: version.dataset_key,
    owner: input.owner,
    description: input.description,
    tags: JSON.stringify(input.tags ?? []),
    freshness: input.freshness ? JSON.stringify(input.freshness) : null,
    column_docs: JSON.stringify(input.column_docs ?? []),
    source_object_ids: JSON.stringify(sourceIds),
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await insertManifest(ctx.db, row);
  const edges = await insertEdges(
    ctx.db,
    ctx.workspaceId,
    sourceIds.map((id) => ({
      from: { type: 'dataset_version', id: version.id },
      relation: 'reads' as const,
      to: { type: 'source_object', id },
    })),
    ctx.now,
  );
  const manifest = toDatasetManifest(row);
  ctx.audit({
    targetType: 'data_agent_dataset_manifest',
    targetId: row.id,
    action: 'create',
    changedFields: [
      'version_id',
      'owner',
      'description',
      'tags',
      'freshness',
      'column_docs',
      'source_object_ids',
    ],
  });
  ctx.emit({
    name: 'data_agent_dataset_manifest.created',
    targetType: 'data_agent_dataset_manifest',
    targetId: row.id,
    data: manifest,
  });
  return { manifest, edges: edges.map((e) => e.edge) };
}

export const createDatasetManifest = defineOperation({
  name: 'create_data_agent_dataset_manifest',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_dataset_manifest',
  summary: 'Describe a dataset version for its consumers',
  description:
    "Writes the manifest of a dataset version (one per version; a second is 409 conflict): owner, description, tags, freshness expectation (max_age_hours), documentation of the version's columns (an unknown column is validation_failed) and the source objects it reads (each must exist; lineage edges version reads source object are recorded). Emits data_agent_dataset_manifest.created.",
  input: Strict({
    version_id: idInput,
    description: descriptionInput,
    ...manifestFields,
  }),
  rest: { method: 'POST', path: '/v1/data-agents/manifests' },
  responseKey: 'manifest',
  handler: async (ctx, input) => {
    const version = (await ctx.requireRecord(
      'data_agent_dataset_version',
      input.version_id,
    )) as DatasetVersion;
    const { manifest } = await writeManifest(ctx, version, input);
    return { body: { manifest }, createdId: manifest.id };
  },
});

export const listDatasetManifests = defineOperation({
  name: 'list_data_agent_dataset_manifests',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List dataset manifests',
  description:
    'Lists dataset manifests, newest first, by dataset_key or version_id: who owns a dataset, what its columns mean, how fresh it is expected to be, and which source objects it reads. Use it before consuming a dataset version.',
  input: Strict({
    dataset_key: Type.Optional(DatasetKey),
    version_id: Type.Optional(idInput),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/manifests' },
  heavy: heavyFilters({ indexed: ['dataset_key', 'version_id'] }),
  responseKey: 'manifests',
  handler: async (ctx, input) => {
    const page = await listManifests(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_dataset_manifests', input),
    );
    return { body: listBody('manifests', page) };
  },
});
