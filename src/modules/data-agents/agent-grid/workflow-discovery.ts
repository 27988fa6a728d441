// Workflow discovery: the workspace's workflows ranked for a query by a hybrid of vector similarity (the
// builtin embedder over name, description and steps, kept in a per-workspace system vector collection) and
// keyword match, each hit saying why it matched. The collection follows workflow events through the outbox
// relay; reindex_agent_grid_workflow_discovery rebuilds it as a run.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { defineOperation } from '../../../core/define-operation.ts';
import type { EventConsumer } from '../../../core/module.ts';
import { Enum, Shape, Text } from '../../../core/resource-schema.ts';
import { defineRunJob } from '../../../core/run-job.ts';
import { runBody, runOperations } from '../../../core/run-operations.ts';
import { Strict } from '../../../core/schema.ts';
import type { DB } from '../../../db/tables.ts';
import { searchCollection } from '../vectors/vector-search.ts';
import { agentStatuses, triggerTypes, type Workflow, WorkflowSchema } from './agent-grid-schemas.ts';
import type { AgentWorkflowsTable } from './agent-grid-tables.ts';
import { cosine, embed, hybridScore, keywordMatch, round4, terms } from './text-rank.ts';
import { toolCatalogue } from './tool-catalogue.ts';
import {
  deleteWorkflowDocuments,
  documentIdsOf,
  ensureDiscoveryCollection,
  findDiscoveryCollection,
  keywordCandidates,
  upsertWorkflowDocuments,
  type WorkflowDocument,
  workflowChunk,
  workflowsByIds,
} from './workflow-discovery-store.ts';
import { toWorkflow } from './workflow-store.ts';

export const REINDEX_RUN_TYPE = 'agent_grid_workflow_discovery';
export const REINDEX_JOB = 'agent-grid.discovery-reindex';

/** What a workflow is found by, field by field; the tools' own descriptions come from the registry. */
function workflowFields(workflow: Workflow, describe: (tool: string) => string | undefined) {
  const tools = workflow.steps.flatMap((s) => (s.tool ? [s.tool] : []));
  return {
    name: workflow.name,
    key: workflow.key,
    description: workflow.description ?? '',
    step_tools: tools.join(' '),
    step_descriptions: workflow.steps
      .map((s) => `${s.key} ${s.agent_key ?? ''} ${s.description ?? ''}`)
      .join(' '),
    tool_descriptions: tools.map((t) => describe(t) ?? '').join(' '),
  };
}

const FIELD_WEIGHTS = {
  name: 1,
  key: 1,
  description: 0.9,
  step_tools: 0.9,
  step_descriptions: 0.8,
  tool_descriptions: 0.6,
};

function documentText(fields: Record<string, string>): string {
  return Object.values(fields).join('\n');
}

async function describer(): Promise<(tool: string) => string | undefined> {
  const catalogue = await toolCatalogue();
  return (tool) => {
    const op = catalogue.get(tool);
    return op && `${op.summary}. ${op.description}`;
  };
}

function workflowDocument(
  row: AgentWorkflowsTable,
  describe: (tool: string) => string | undefined,
): WorkflowDocument {
  const workflow = toWorkflow(row);
  return {
    id: row.id,
    text: documentText(workflowFields(workflow, describe)),
    metadata: {
      key: row.key,
      status: row.status,
      trigger_type: row.trigger_type,
      tools: workflow.steps.flatMap((s) => (s.tool ? [s.tool] : [])),
    },
  };
}

/** Re-indexes the given workflows of a workspace (those deleted since are dropped from the index). */
export async function indexWorkflows(db: Kysely<DB>, workspaceId: string, ids: string[], now: string) {
  const collection = await ensureDiscoveryCollection(db, workspaceId, now);
  const rows = await workflowsByIds(db, workspaceId, ids);
  const describe = await describer();
  await upsertWorkflowDocuments(
    db,
    collection,
    rows.map((r) => workflowDocument(r, describe)),
    now,
  );
}

/** Keeps the index in step with workflow writes, in the relay's transaction (at least once, idempotent). */
export const discoveryIndexer: EventConsumer = {
  name: 'agent-grid.workflow-discovery',
  subscribes: ['agent_workflow.created', 'agent_workflow.updated'],
  consume: async (db, workspaceId, events, clock) => {
    const ids = [...new Set(events.flatMap((e) => (e.target_id ? [e.target_id] : [])))];
    await indexWorkflows(db, workspaceId, ids, clock.now().toISOString());
  },
};

/** The whole index rebuilt from the workflows table: every workflow written, every stray document removed. */
export const discoveryReindexJob = defineRunJob({
  name: REINDEX_JOB,
  timeoutSeconds: 600,
  retryLimit: 2,
  work: async (work) => {
    const now = () => new Date().toISOString();
    const collection = await ensureDiscoveryCollection(work.db, work.workspaceId, now());
    const describe = await describer();
    const seen = new Set<string>();
    let afterId: string | undefined;
    for (;;) {
      work.signal.throwIfAborted();
      const rows = await workflowChunk(work.db, work.workspaceId, afterId, 200);
      await upsertWorkflowDocuments(
        work.db,
        collection,
        rows.map((r) => workflowDocument(r, describe)),
        now(),
      );
      for (const r of rows) seen.add(r.id);
      if (rows.length < 200) break;
      afterId = rows[rows.length - 1]!.id;
    }
    const stray = (await documentIdsOf(work.db, collection)).filter((id) => !seen.has(id));
    await deleteWorkflowDocuments(work.db, collection, stray, now());
    return { resultRef: `${seen.size} workflows indexed` };
  },
});

const MatchSchema = Shape({
  workflow: WorkflowSchema,
  score: Type.Number({
    examples: [0.71],
    description: 'Hybrid: half vector similarity, half keyword match.',
  }),
  vector_score: Type.Number({ examples: [0.42], description: 'Cosine of the builtin (lexical) embeddings.' }),
  keyword_score: Type.Number({ examples: [1], description: "Weighted share of the query's terms found." }),
  matched_terms: Type.Array(Type.String(), { examples: [['invoice']] }),
  matched_fields: Type.Array(Type.String(), {
    examples: [['step_tools', 'tool_descriptions']],
    description: 'name, key, description, step_tools, step_descriptions, tool_descriptions.',
  }),
});

export const discoverAgentGridWorkflows = defineOperation({
  name: 'discover_agent_grid_workflows',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'Find workflows for a task',
  description:
    "Ranks the workspace's agent workflows for a natural-language query by a hybrid of vector similarity (the builtin lexical embedder over name, description, step tools and their descriptions) and keyword match, so a workflow is found by what its steps do even when its name says otherwise. Each match says why: matched terms, the fields they matched and both scores. filters narrow by status, trigger_type or a tool used by a step. Use it before create_agent_workflow to reuse what exists. Reads only.",
  input: Strict({
    query: Type.String({ minLength: 1, maxLength: 500, examples: ['send an invoice reminder'] }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 10.' })),
    filters: Type.Optional(
      Strict({
        status: Type.Optional(Enum(agentStatuses)),
        trigger_type: Type.Optional(Enum(triggerTypes)),
        tool: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'Only workflows with a step calling it.',
          }),
        ),
      }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/workflow-discovery' },
  // Scores a collection's documents and a keyword scan of the workspace's workflows.
  heavy: true,
  responseKey: 'matches',
  response: Shape({
    query: Text('send an invoice reminder'),
    matches: Type.Array(MatchSchema),
    indexed_workflows: Type.Integer({
      minimum: 0,
      examples: [12],
      description:
        'Documents in the discovery index (0 until the first workflow event is relayed or a reindex ran).',
    }),
  }),
  handler: async (ctx, input) => {
    const topK = input.top_k ?? 10;
    const filters = input.filters ?? {};
    const queryTerms = terms(input.query);
    const queryVector = embed(input.query);
    const collection = await findDiscoveryCollection(ctx.db, ctx.workspaceId);
    const candidates = new Map<string, AgentWorkflowsTable>();
    if (collection && Number(collection.document_count) > 0) {
      const metadata: Record<string, string> = {};
      if (filters.status) metadata.status = filters.status;
      if (filters.trigger_type) metadata.trigger_type = filters.trigger_type;
      if (filters.tool) metadata.tools = filters.tool;
      const { hits } = await searchCollection(
        ctx.db,
        collection,
        {
          query: Array.from(queryVector),
          topK: Math.min(100, topK * 4),
          filter: metadata,
          includeVectors: false,
        },
        { exactThreshold: ctx.config.vectorExactThreshold, maxVectors: ctx.config.vectorIndexMaxVectors },
      );
      for (const row of await workflowsByIds(
        ctx.db,
        ctx.workspaceId,
        hits.map((h) => h.id),
      )) {
        candidates.set(row.id, row);
      }
    }
    for (const row of await keywordCandidates(ctx.db, ctx.workspaceId, queryTerms, filters, 200)) {
      candidates.set(row.id, row);
    }
    const describe = (tool: string) => {
      const op = ctx.operationNamed(tool);
      return op && `${op.summary}. ${op.description}`;
    };
    const matches = [];
    for (const row of candidates.values()) {
      const workflow = toWorkflow(row);
      // The index may lag the table by a relay pass: filters are checked on the row itself.
      if (filters.status && row.status !== filters.status) continue;
      if (filters.trigger_type && row.trigger_type !== filters.trigger_type) continue;
      if (filters.tool && !workflow.steps.some((s) => s.tool === filters.tool)) continue;
      const fields = workflowFields(workflow, describe);
      const sets = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, new Set(terms(v))]));
      const keyword = keywordMatch(queryTerms, sets, FIELD_WEIGHTS);
      const vector = cosine(queryVector, embed(documentText(fields)));
      const score = hybridScore(vector, keyword.score);
      if (score <= 0.05 && keyword.matched_terms.length === 0) continue;
      matches.push({
        workflow,
        score,
        vector_score: round4(vector),
        keyword_score: round4(keyword.score),
        matched_terms: keyword.matched_terms,
        matched_fields: keyword.matched_fields,
      });
    }
    matches.sort((a, b) => b.score - a.score || a.workflow.id.localeCompare(b.workflow.id));
    return {
      body: {
        query: input.query,
        matches: matches.slice(0, topK),
        indexed_workflows: collection ? Number(collection.document_count) : 0,
      },
    };
  },
});

export const reindexAgentGridWorkflowDiscovery = defineOperation({
  name: 'reindex_agent_grid_workflow_discovery',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'action',
  starts: { runType: REINDEX_RUN_TYPE, job: REINDEX_JOB },
  summary: 'Rebuild the workflow discovery index',
  description:
    "Rebuilds the workspace's workflow discovery index (the system vector collection _agent_grid_workflows) from its workflows: answers at once (202) with a queued run; a background job rewrites every workflow's document and removes documents of workflows that no longer exist. Poll get_agent_grid_workflow_discovery_run. Needed only after a restore or an index problem: workflow writes keep the index current through their events.",
  input: Strict({}),
  rest: { method: 'POST', path: '/v1/agent-grid/workflow-discovery/reindex' },
  responseKey: 'run',
  response: runBody(),
  handler: async (ctx) => {
    const run = await ctx.startRun({ inputSummary: {} });
    return { body: { run }, createdId: run.id };
  },
});

const reindexRuns = runOperations({
  module: 'data_agents',
  runType: REINDEX_RUN_TYPE,
  readScope: 'data_agents:read',
  writeScope: 'data_agents:write',
  restCollection: '/v1/agent-grid/workflow-discovery/runs',
  noun: 'workflow discovery reindex run',
});

export const discoveryOperations = [
  discoverAgentGridWorkflows,
  reindexAgentGridWorkflowDiscovery,
  reindexRuns.get,
  reindexRuns.list,
  reindexRuns.cancel,
];
