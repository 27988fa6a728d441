// Lineage nodes: typed references to objects of this workspace. Each node type stored in this workspace is
// a record type (get_record), so a node is checked to exist here: another workspace's ID is
// resource_not_found, and an edge across workspaces cannot be written. Types whose records are not
// registered (yet) are taken as given; bi_dataset names a BI template or custom dataset by key.
import { type Static, Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { validationFailed } from '../../../core/errors.ts';
import { Strict } from '../../../core/schema.ts';
import { resolveDataset } from '../../product-analytics/bi/bi-store.ts';
import { type LineageRelation, NODE_TYPE_PATTERN, type NodeType } from './job-schemas.ts';

export const nodeRefInput = (description?: string) =>
  Strict(
    {
      type: Type.String({
        pattern: NODE_TYPE_PATTERN,
        examples: ['execution_job'],
        description:
          'source_object, dataset_version, execution_job, bi_query, metric, report, insight, knowledge_artifact, recommendation, bi_dataset (id: the dataset key), or record:<type> for a workspace record (record:contact).',
      }),
      id: Type.String({ minLength: 1, maxLength: 255, examples: ['dxj_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'] }),
    },
    description ? { description } : {},
  );

export type NodeRef = Static<ReturnType<typeof nodeRefInput>>;

/** The record type holding each node type. */
const RECORD_TYPE_OF: Record<Exclude<NodeType, 'bi_dataset'>, string> = {
  source_object: 'data_agent_source_object',
  dataset_version: 'data_agent_dataset_version',
  execution_job: 'data_agent_execution_job',
  bi_query: 'bi_query',
  metric: 'bi_metric',
  report: 'bi_report',
  insight: 'data_agent_insight',
  knowledge_artifact: 'data_agent_knowledge_artifact',
  recommendation: 'data_agent_recommendation',
};

/** The record type of a node, or undefined for bi_dataset (a key, not a record). */
export function recordTypeOf(type: string): string | undefined {
  if (type.startsWith('record:')) return type.slice('record:'.length);
  return RECORD_TYPE_OF[type as keyof typeof RECORD_TYPE_OF];
}

/** Every node exists in this workspace (resource_not_found); a bi_dataset is a template or a dataset here. */
export async function checkNodes(
  ctx: OperationContext,
  nodes: readonly { field: string; ref: NodeRef }[],
): Promise<void> {
  for (const { field, ref } of nodes) {
    if (ref.type === 'bi_dataset') {
      await resolveDataset(ctx.db, ctx.workspaceId, ref.id, `${field}.id`);
      continue;
    }
    const recordType = recordTypeOf(ref.type)!;
    if (ref.type.startsWith('record:') && !ctx.hasRecordType(recordType)) {
      throw validationFailed([
        { field: `${field}.type`, message: `${recordType} is not a record type (see get_record)` },
      ]);
    }
    if (ctx.hasRecordType(recordType)) await ctx.requireRecord(recordType, ref.id);
  }
}

/** Relations whose `to` is what `from` came from; the others (produces, publishes) point downstream. */
const TO_IS_UPSTREAM: ReadonlySet<LineageRelation> = new Set([
  'reads',
  'derived_from',
  'uses_metric',
  'cites',
]);

/** Which end of an edge is upstream (where data comes from) and which downstream. */
export function flowOf(from: NodeRef, relation: LineageRelation, to: NodeRef) {
  return TO_IS_UPSTREAM.has(relation)
    ? { upstream: to, downstream: from }
    : { upstream: from, downstream: to };
}
