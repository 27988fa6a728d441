// create_content_performance_knowledgebase (MCP-only workflow, issue 13 item 11): runs the
// content_performance template through the BI core (the snapshot, three breakdowns: by status, channel
// and content type, and campaign budgets), snapshots it as a dataset version (proposed) and writes a knowledge artifact of the
// actual figures as Markdown tables, with lineage artifact -> version -> template. Idempotent by key.
import { performance } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { Strict } from '../../../core/schema.ts';
import { TimeRangeSchema } from '../../product-analytics/bi/query-definition.ts';
import { type BiResult, recordBiRun, runQueryDefinition } from '../../product-analytics/bi/run-query.ts';
import { DatasetVersionSchema } from './dataset-version-schemas.ts';
import {
  findDatasetVersion,
  type Snapshot,
  takeSnapshot,
  toDatasetVersion,
} from './dataset-version-store.ts';
import { writeVersion } from './dataset-versions.ts';
import { LineageEdgeSchema } from './job-schemas.ts';
import { insertKnowledgeArtifact, type KnowledgeArtifact } from './knowledge-artifact-store.ts';
import { edgesTouching, insertEdges } from './lineage-store.ts';
import { KnowledgeArtifactSchema } from './records-schemas.ts';

const TEMPLATE = 'content_performance';
const COUNTS = [
  { aggregate: 'count' as const, as: 'items' },
  { column: 'published', aggregate: 'sum' as const, as: 'published_count' },
];
// Counts per dimension; budgets apart (a money sum is grouped by currency, which would split the counts).
const BREAKDOWNS = [
  { title: 'By status', dimensions: ['status'], measures: COUNTS },
  { title: 'By channel', dimensions: ['channel'], measures: COUNTS },
  { title: 'By content type', dimensions: ['content_type'], measures: COUNTS },
  {
    title: 'Campaign budgets',
    dimensions: ['channel'],
    measures: [
      { aggregate: 'count' as const, as: 'campaigns' },
      { column: 'budget_cents', aggregate: 'sum' as const, as: 'budget_cents' },
    ],
    filters: [{ column: 'content_type', operator: 'eq' as const, value: 'marketing_campaign' }],
  },
] as const;

const credentialOf = (ctx: OperationContext) => ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null;

const cell = (value: unknown) =>
  value === null || value === undefined ? '(none)' : String(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A query result as a Markdown table: its columns in order, every row. */
export function markdownTable(result: BiResult): string {
  const names = result.columns.map((c) => c.name);
  const lines = [
    `| ${names.join(' | ')} |`,
    `| ${result.columns.map((c) => (c.role === 'measure' ? '---:' : '---')).join(' | ')} |`,
    ...result.rows.map((row) => `| ${names.map((n) => cell(row[n])).join(' | ')} |`),
  ];
  return lines.join('\n');
}

const sum = (rows: BiResult['rows'], column: string) =>
  rows.reduce((total, row) => total + (typeof row[column] === 'number' ? (row[column] as number) : 0), 0);

/** The artifact's Markdown: totals from the by-type breakdown, then one table per breakdown. */
function knowledgebaseContent(title: string, snapshot: Snapshot, results: BiResult[], versionNumber: number) {
  const byType = results[2]!.rows;
  const sections = BREAKDOWNS.map(
    (b, i) => `## ${b.title}\n\n${results[i]!.rows.length ? markdownTable(results[i]!) : 'None.'}\n`,
  );
  return [
    `# ${title}`,
    '',
    `Content items (CMS entries, marketing posts and campaigns): **${sum(byType, 'items')}** in all, ` +
      `**${sum(byType, 'published_count')}** published. Budgets are campaign budgets in cents, per currency.`,
    '',
    `Source: dataset version ${versionNumber} of \`${TEMPLATE}\` (${snapshot.rowCount} rows, checksum ` +
      `\`${snapshot.checksum}\`).`,
    '',
    ...sections,
  ].join('\n');
}

export const createContentPerformanceKnowledgebase = defineOperation({
  name: 'create_content_performance_knowledgebase',
  module: 'data_agents',
  scopes: ['bi:write', 'data_agents:write'],
  kind: 'create',
  creates: 'data_agent_knowledge_artifact',
  summary: 'Build a content performance knowledgebase',
  description:
    'Runs the content_performance BI template (optionally over a time_range of created_at), snapshots it as the next dataset version of content_performance (proposed), and writes a draft summary knowledge artifact with the actual figures as Markdown tables by status, by channel and by content type (items, published count) and campaign budgets by channel (cents per currency). Lineage: artifact derived_from version derived_from template. Records a BI run. Idempotent by idempotency_key. MCP-only workflow. Emits the created events of the version and the artifact.',
  input: Strict({
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    time_range: Type.Optional(TimeRangeSchema),
  }),
  rest: null,
  responseKey: 'knowledge_artifact',
  response: Type.Object({
    knowledge_artifact: KnowledgeArtifactSchema,
    dataset_version: DatasetVersionSchema,
    lineage_edges: Type.Array(LineageEdgeSchema),
  }),
  heavyRead: async (ctx, input) => {
    const started = performance.now();
    const options = { dialect: ctx.dialect, now: ctx.now, credentialId: credentialOf(ctx) };
    const range = input.time_range ? { time_range: input.time_range } : {};
    const snapshot = await takeSnapshot(
      ctx.db,
      ctx.workspaceId,
      { dataset_key: TEMPLATE, ...range },
      options,
    );
    const results: BiResult[] = [];
    for (const b of BREAKDOWNS) {
      const definition = {
        dataset_key: TEMPLATE,
        dimensions: [...b.dimensions],
        measures: [...b.measures],
        ...('filters' in b ? { filters: [...b.filters] } : {}),
        ...range,
        sort: [{ column: b.measures[0].as, direction: 'desc' as const }],
        limit: 1000,
      };
      results.push((await runQueryDefinition(ctx.db, ctx.workspaceId, definition, options)).result);
    }
    return { snapshot, results, durationMs: Math.round(performance.now() - started) };
  },
  handler: async (ctx, input, ran: { snapshot: Snapshot; results: BiResult[]; durationMs: number }) => {
    const title = input.title ?? 'Content performance knowledgebase';
    const { version, edges } = await writeVersion(ctx, ran.snapshot, {
      description: `Snapshot for the knowledge artifact "${title}".`,
      jobId: null,
      createdBy: credentialOf(ctx),
    });
    await recordBiRun(ctx.db, {
      workspaceId: ctx.workspaceId,
      runType: 'bi_query',
      operation: 'create_content_performance_knowledgebase',
      trigger: 'manual',
      input: { dataset_key: TEMPLATE, dataset_version_id: version.id },
      related: [{ type: 'bi_dataset', id: TEMPLATE }],
      status: 'completed',
      startedAt: ctx.now,
      durationMs: ran.durationMs,
      rowCount: ran.snapshot.rowCount,
      requestId: ctx.requestId,
      credentialId: credentialOf(ctx),
    });
    const artifact = await insertKnowledgeArtifact(ctx.db, {
      workspaceId: ctx.workspaceId,
      title,
      kind: 'summary',
      content: knowledgebaseContent(title, ran.snapshot, ran.results, version.version),
      sourceRefs: [{ type: 'data_agent_dataset_version', id: version.id }],
      now: ctx.now,
    });
    const [derived] = await insertEdges(
      ctx.db,
      ctx.workspaceId,
      [
        {
          from: { type: 'knowledge_artifact', id: artifact.id },
          relation: 'derived_from',
          to: { type: 'dataset_version', id: version.id },
        },
      ],
      ctx.now,
    );
    const target = { targetType: 'data_agent_knowledge_artifact', targetId: artifact.id };
    ctx.audit({ ...target, action: 'create', changedFields: ['title', 'kind', 'content', 'source_refs'] });
    ctx.emit({ name: 'data_agent_knowledge_artifact.created', ...target, data: artifact });
    return {
      body: {
        knowledge_artifact: artifact,
        dataset_version: version,
        lineage_edges: [derived!.edge, ...edges],
      },
      createdId: artifact.id,
    };
  },
  replay: async (ctx, record) => {
    const artifact = record as KnowledgeArtifact;
    const versionId = artifact.source_refs.find((r) => r.type === 'data_agent_dataset_version')?.id ?? '';
    const row = await findDatasetVersion(ctx.db, ctx.workspaceId, versionId);
    const edges = await edgesTouching(
      ctx.db,
      ctx.workspaceId,
      { type: 'knowledge_artifact', id: artifact.id },
      50,
    );
    return {
      knowledge_artifact: artifact,
      dataset_version: row ? toDatasetVersion(row) : null,
      lineage_edges: edges,
    };
  },
});
