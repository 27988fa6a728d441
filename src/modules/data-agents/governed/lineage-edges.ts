import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { validationFailed } from '../../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { LINEAGE_RELATIONS, LineageEdgeSchema, NODE_TYPE_PATTERN } from './job-schemas.ts';
import { checkNodes, nodeRefInput } from './lineage-nodes.ts';
import { insertEdges, listEdges, toEdge, walkEdges } from './lineage-store.ts';

export const lineageEdgeRecord = defineRecordType({
  type: 'data_agent_lineage_edge',
  module: 'data_agents',
  table: 'data_agent_lineage_edges',
  collection: '/v1/data-agents/lineage',
  key: 'lineage_edge',
  readScope: 'data_agents:read',
  schema: LineageEdgeSchema,
  toResource: toEdge,
});

export const createLineageEdge = defineOperation({
  name: 'create_data_agent_lineage_edge',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  example: { to: { type: 'bi_dataset', id: 'crm_pipeline' } },
  creates: 'data_agent_lineage_edge',
  summary: 'Record a lineage edge',
  description:
    'Records that one object relates to another: from reads / derived_from / uses_metric / cites to (to is upstream of from), or from produces / publishes to (to is downstream). Both nodes must exist in this workspace (resource_not_found otherwise). Recording an edge that exists returns it unchanged (200). Execution jobs record their own edges as they run. Emits data_agent_lineage_edge.created.',
  input: Strict({
    from: nodeRefInput('The subject of the relation (a job, an insight, a dataset version, ...).'),
    relation: Enum(LINEAGE_RELATIONS),
    to: nodeRefInput('The object of the relation.'),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/lineage' },
  responseKey: 'lineage_edge',
  handler: async (ctx, input) => {
    if (input.from.type === input.to.type && input.from.id === input.to.id) {
      throw validationFailed([{ field: 'to', message: 'is the same node as from' }]);
    }
    await checkNodes(ctx, [
      { field: 'from', ref: input.from },
      { field: 'to', ref: input.to },
    ]);
    const [written] = await insertEdges(
      ctx.db,
      ctx.workspaceId,
      [{ from: input.from, relation: input.relation, to: input.to, note: input.note ?? null }],
      ctx.now,
    );
    const { edge, created } = written!;
    ctx.audit({
      targetType: 'data_agent_lineage_edge',
      targetId: edge.id,
      changedFields: created ? inputFields(input) : [],
    });
    if (created) {
      ctx.emit({
        name: 'data_agent_lineage_edge.created',
        targetType: 'data_agent_lineage_edge',
        targetId: edge.id,
        data: edge,
      });
    }
    return { body: { lineage_edge: edge }, createdId: edge.id, status: created ? 201 : 200 };
  },
});

export const listLineageEdges = defineOperation({
  name: 'list_data_agent_lineage_edges',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List or walk lineage edges',
  description:
    'Lists lineage edges, newest first, touching a node (node_type + node_id), of a relation, or recorded by a job. With direction (upstream: where the node\'s data came from; downstream: what was made from it) and depth 1..5 it walks the graph from the node and returns every edge reached, so "where did this number come from" is one call (node_type insight, direction upstream).',
  input: Strict({
    node_type: Type.Optional(
      Type.String({ pattern: NODE_TYPE_PATTERN, description: 'With node_id: a node.' }),
    ),
    node_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    relation: Type.Optional(Enum(LINEAGE_RELATIONS)),
    job_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Edges a job recorded.' }),
    ),
    direction: Type.Optional(
      Enum(['upstream', 'downstream'] as const, { description: 'Walk from the node.' }),
    ),
    depth: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, description: 'Steps of a walk (default 3).' }),
    ),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/lineage' },
  // A walk's fan-out has no bound but its depth, and job_id has no index: both run on the heavy reads.
  heavy: heavyFilters({ indexed: ['node_type', 'relation'], scans: ['job_id', 'direction'] }),
  responseKey: 'lineage_edges',
  handler: async (ctx, input) => {
    if ((input.node_type === undefined) !== (input.node_id === undefined)) {
      const field = input.node_type === undefined ? 'node_type' : 'node_id';
      throw validationFailed([{ field, message: 'node_type and node_id are sent together' }]);
    }
    const node = input.node_type ? { type: input.node_type, id: input.node_id! } : undefined;
    const request = pageRequest('list_data_agent_lineage_edges', input);
    if (input.direction === undefined) {
      if (input.depth !== undefined)
        throw validationFailed([{ field: 'depth', message: 'is sent with direction' }]);
      const page = await listEdges(ctx.db, ctx.workspaceId, { ...input, node }, request);
      return { body: listBody('lineage_edges', page) };
    }
    if (!node)
      throw validationFailed([
        { field: 'node_type', message: 'a walk starts from a node: send node_type and node_id' },
      ]);
    if (input.job_id !== undefined)
      throw validationFailed([{ field: 'job_id', message: 'cannot be combined with a walk' }]);
    const page = await walkEdges(
      ctx.db,
      ctx.workspaceId,
      { node, direction: input.direction, depth: input.depth ?? 3, relation: input.relation },
      request,
    );
    return { body: listBody('lineage_edges', page) };
  },
});
