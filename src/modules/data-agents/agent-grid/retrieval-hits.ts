import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { RetrievalHitSchema } from './agent-grid-schemas.ts';
import { idInput } from './agent-grid-shared.ts';
import type { AgentGridRetrievalHitsTable } from './agent-grid-tables.ts';
import { recomputeRun, runTakingChildren } from './run-child.ts';
import { insertRetrievalHit, listChildren, toRetrievalHit } from './run-store.ts';

export const retrievalHitRecord = defineRecordType({
  type: 'agent_grid_retrieval_hit',
  module: 'data_agents',
  table: 'agent_grid_retrieval_hits',
  collection: '/v1/agent-grid/retrieval-hits',
  key: 'retrieval_hit',
  readScope: 'data_agents:read',
  schema: RetrievalHitSchema,
  toResource: toRetrievalHit,
});

const keyText = Type.String({ minLength: 1, maxLength: 200 });

export const createAgentGridRetrievalHit = defineOperation({
  name: 'create_agent_grid_retrieval_hit',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_grid_retrieval_hit',
  summary: 'Record a retrieval hit of a run',
  description:
    "Records one document a run retrieved: the collection key (a vector collection or your own index), the document's ID, its score and rank, and the query. The run must be unfinished (409 conflict otherwise); its retrieval_hits total is recomputed and a queued run becomes running. Emits agent_grid_retrieval_hit.created.",
  input: Strict({
    run_id: idInput(),
    collection_key: keyText,
    document_id: Type.String({ minLength: 1, maxLength: 500 }),
    score: Type.Number({ minimum: -1e9, maximum: 1e9 }),
    rank: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: '1 = best.' })),
    query: Type.Optional(Type.String({ maxLength: 4000 })),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/retrieval-hits' },
  responseKey: 'retrieval_hit',
  handler: async (ctx, input) => {
    const run = await runTakingChildren(ctx, input.run_id);
    const row: AgentGridRetrievalHitsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('arh'),
      run_id: run.id,
      collection_key: input.collection_key,
      document_id: input.document_id,
      score: input.score,
      rank: input.rank ?? null,
      query: input.query ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertRetrievalHit(ctx.db, row);
    await recomputeRun(ctx, run, 'retrieval_hits');
    const hit = toRetrievalHit(row);
    ctx.audit({
      targetType: 'agent_grid_retrieval_hit',
      targetId: row.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'agent_grid_retrieval_hit.created',
      targetType: 'agent_grid_retrieval_hit',
      targetId: row.id,
      data: hit,
    });
    return { body: { retrieval_hit: hit }, createdId: row.id };
  },
});

export const listAgentGridRetrievalHits = defineOperation({
  name: 'list_agent_grid_retrieval_hits',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List retrieval hits of runs',
  description:
    'Lists recorded retrieval hits, newest first; filter by run, or by collection_key (with document_id: which runs retrieved a document).',
  input: Strict({
    run_id: Type.Optional(idInput()),
    collection_key: Type.Optional(keyText),
    document_id: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/retrieval-hits' },
  heavy: (input) =>
    heavyFilters({ indexed: ['run_id', 'collection_key'] })(input) ||
    Boolean(input.document_id && !input.collection_key),
  responseKey: 'retrieval_hits',
  handler: async (ctx, input) => {
    const { limit: _l, cursor: _c, ...filters } = input;
    const page = await listChildren(
      ctx.db,
      'agent_grid_retrieval_hits',
      ctx.workspaceId,
      filters,
      pageRequest('list_agent_grid_retrieval_hits', input),
    );
    return { body: listBody('retrieval_hits', { ...page, items: page.items.map(toRetrievalHit) }) };
  },
});
