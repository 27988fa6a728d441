import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import type { DataAgentSourceObjectsTable } from './governed-tables.ts';
import { checkRefs, refInput } from './object-refs.ts';
import { SOURCE_OBJECT_KINDS, SourceObjectSchema } from './records-schemas.ts';
import { insertSourceObject, listSourceObjects, toSourceObject } from './source-object-store.ts';

export const sourceObjectRecord = defineRecordType({
  type: 'data_agent_source_object',
  module: 'data_agents',
  table: 'data_agent_source_objects',
  collection: '/v1/data-agents/source-objects',
  key: 'source_object',
  readScope: 'data_agents:read',
  schema: SourceObjectSchema,
  toResource: toSourceObject,
});

const kindEnum = Type.Unsafe<(typeof SOURCE_OBJECT_KINDS)[number]>({
  type: 'string',
  enum: [...SOURCE_OBJECT_KINDS],
});
const keyInput = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

/** The fields each kind needs; a field of another kind is refused rather than stored unused. */
const KIND_FIELDS = {
  workspace_record: ['record'],
  bi_dataset: ['dataset_key'],
  app_event_stream: ['app', 'object_type'],
  external_uri: ['uri'],
} as const;
const ALL_KIND_FIELDS = ['record', 'dataset_key', 'app', 'object_type', 'uri'] as const;

export const createSourceObject = defineOperation({
  name: 'create_data_agent_source_object',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  example: { kind: 'bi_dataset', name: 'Pipeline deals', dataset_key: 'crm_pipeline' },
  creates: 'data_agent_source_object',
  summary: 'Register a source object',
  description:
    'Registers what governed data reads, by kind: workspace_record (record {type, id}, which must exist), bi_dataset (dataset_key), app_event_stream (app and object_type) or external_uri (uri, stored as text and never fetched); with name, description and owner. Manifests and lineage edges then reference it. Emits data_agent_source_object.created.',
  input: Strict({
    kind: kindEnum,
    name: Type.String({ minLength: 1, maxLength: 500 }),
    record: Type.Optional(refInput('kind workspace_record: the record read.')),
    dataset_key: Type.Optional(keyInput('kind bi_dataset: the BI dataset or template key.')),
    app: Type.Optional(keyInput('kind app_event_stream: the application.')),
    object_type: Type.Optional(keyInput('kind app_event_stream: the object type.')),
    uri: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000, description: 'kind external_uri.' })),
    description: Type.Optional(Type.String({ maxLength: 5_000 })),
    owner: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/source-objects' },
  responseKey: 'source_object',
  handler: async (ctx, input) => {
    const needed: readonly string[] = KIND_FIELDS[input.kind];
    const sent = input as Record<string, unknown>;
    const errors: FieldError[] = [
      ...needed
        .filter((f) => sent[f] === undefined)
        .map((field) => ({ field, message: `is required for kind ${input.kind}` })),
      ...ALL_KIND_FIELDS.filter((f) => !needed.includes(f) && sent[f] !== undefined).map((field) => ({
        field,
        message: `does not apply to kind ${input.kind}`,
      })),
    ];
    if (errors.length) throw validationFailed(errors);
    if (input.record) await checkRefs(ctx, [{ field: 'record', ref: input.record }]);
    const row: DataAgentSourceObjectsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('dso'),
      kind: input.kind,
      name: input.name,
      record_type: input.record?.type ?? null,
      record_id: input.record?.id ?? null,
      dataset_key: input.dataset_key ?? null,
      app: input.app ?? null,
      object_type: input.object_type ?? null,
      uri: input.uri ?? null,
      description: input.description ?? null,
      owner: input.owner ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertSourceObject(ctx.db, row);
    const sourceObject = toSourceObject(row);
    ctx.audit({
      targetType: 'data_agent_source_object',
      targetId: row.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'data_agent_source_object.created',
      targetType: 'data_agent_source_object',
      targetId: row.id,
      data: sourceObject,
    });
    return { body: { source_object: sourceObject }, createdId: row.id };
  },
});

export const listSourceObjectsOperation = defineOperation({
  name: 'list_data_agent_source_objects',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List source objects',
  description:
    'Lists the registered source objects of governed data, newest first, by kind and/or dataset_key. Use it to find the ID of a source before creating a manifest or a lineage edge that reads it.',
  input: Strict({
    kind: Type.Optional(kindEnum),
    dataset_key: Type.Optional(keyInput('Only sources of this BI dataset key.')),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/source-objects' },
  heavy: heavyFilters({ indexed: ['kind', 'dataset_key'] }),
  responseKey: 'source_objects',
  handler: async (ctx, input) => {
    const page = await listSourceObjects(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_source_objects', input),
    );
    return { body: listBody('source_objects', page) };
  },
});
