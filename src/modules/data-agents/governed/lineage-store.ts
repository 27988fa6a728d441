import type { Static } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import { newId } from '../../../core/ids.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { DB } from '../../../db/tables.ts';
import type { LineageEdgeSchema, LineageRelation } from './job-schemas.ts';
import type { DataAgentLineageEdgesTable } from './job-tables.ts';
import { flowOf, type NodeRef } from './lineage-nodes.ts';

export type LineageEdge = Static<typeof LineageEdgeSchema>;

export function toEdge(row: DataAgentLineageEdgesTable): LineageEdge {
  return {
    id: row.id,
    from: { type: row.from_type, id: row.from_id },
    relation: row.relation as LineageRelation,
    to: { type: row.to_type, id: row.to_id },
    job_id: row.job_id,
    note: row.note,
    created_at: row.created_at,
  };
}

export interface NewEdge {
  from: NodeRef;
  relation: LineageRelation;
  to: NodeRef;
  jobId?: string | null;
  note?: string | null;
}

function edgeRow(workspaceId: string, edge: NewEdge, now: string): DataAgentLineageEdgesTable {
  const { upstream, downstream } = flowOf(edge.from, edge.relation, edge.to);
  return {
    workspace_id: workspaceId,
    id: newId('dle'),
    from_type: edge.from.type,
    from_id: edge.from.id,
    to_type: edge.to.type,
    to_id: edge.to.id,
    relation: edge.relation,
    upstream_type: upstream.type,
    upstream_id: upstream.id,
    downstream_type: downstream.type,
    downstream_id: downstream.id,
    job_id: edge.jobId ?? null,
    note: edge.note ?? null,
    created_at: now,
  };
}

const findSameEdge = (db: Kysely<DB>, workspaceId: string, edge: NewEdge) =>
  db
    .selectFrom('data_agent_lineage_edges')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('from_type', '=', edge.from.type)
    .where('from_id', '=', edge.from.id)
    .where('relation', '=', edge.relation)
    .where('to_type', '=', edge.to.type)
    .where('to_id', '=', edge.to.id)
    .executeTakeFirst();

/**
 * Writes edges once: an edge that exists already (same from, relation, to) is kept as it is. Returns every
 * edge asked for, each with whether this call created it. Nodes are checked by the caller (checkNodes).
 */
export async function insertEdges(
  db: Kysely<DB>,
  workspaceId: string,
  edges: readonly NewEdge[],
  now: string,
): Promise<{ edge: LineageEdge; created: boolean }[]> {
  const out: { edge: LineageEdge; created: boolean }[] = [];
  for (const edge of edges) {
    const row = edgeRow(workspaceId, edge, now);
    const inserted = await db
      .insertInto('data_agent_lineage_edges')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'from_type', 'from_id', 'relation', 'to_type', 'to_id']).doNothing(),
      )
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) out.push({ edge: toEdge(row), created: true });
    else out.push({ edge: toEdge((await findSameEdge(db, workspaceId, edge))!), created: false });
  }
  return out;
}

export interface EdgeFilters {
  node?: NodeRef;
  relation?: LineageRelation;
  job_id?: string;
}

/** Edges touching a node (either end), of a relation, recorded by a job: newest first. */
export async function listEdges(
  db: Kysely<DB>,
  workspaceId: string,
  filters: EdgeFilters,
  page: PageRequest,
) {
  let query = db.selectFrom('data_agent_lineage_edges').selectAll().where('workspace_id', '=', workspaceId);
  const node = filters.node;
  if (node) {
    query = query.where((eb) =>
      eb.or([
        eb.and([eb('upstream_type', '=', node.type), eb('upstream_id', '=', node.id)]),
        eb.and([eb('downstream_type', '=', node.type), eb('downstream_id', '=', node.id)]),
      ]),
    );
  }
  if (filters.relation) query = query.where('relation', '=', filters.relation);
  if (filters.job_id) query = query.where('job_id', '=', filters.job_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toEdge) };
}

/**
 * The edges reachable from a node within `depth` steps, upstream (towards where its data came from) or
 * downstream (towards what was made from it), by a recursive query. The walk follows the data flow columns,
 * so one pair of columns serves every relation. A cycle cannot run away: every step adds one to the depth
 * and the walk stops at the bound; UNION drops repeated (node, depth) rows and each edge is listed once.
 */
export async function walkEdges(
  db: Kysely<DB>,
  workspaceId: string,
  walk: { node: NodeRef; direction: 'upstream' | 'downstream'; depth: number; relation?: LineageRelation },
  page: PageRequest,
) {
  // Upstream: from a node to the edges where it is downstream, then on to their upstream ends.
  const [near, far] =
    walk.direction === 'upstream'
      ? (['downstream', 'upstream'] as const)
      : (['upstream', 'downstream'] as const);
  const edges = 'data_agent_lineage_edges';
  const anyDb = db as unknown as Kysely<any>;
  const query = anyDb
    .withRecursive('walk(node_type, node_id, depth)', (qb) =>
      qb
        .selectNoFrom([
          sql<string>`cast(${walk.node.type} as text)`.as('node_type'),
          sql<string>`cast(${walk.node.id} as text)`.as('node_id'),
          sql<number>`cast(0 as integer)`.as('depth'),
        ])
        .union((rq) => {
          let step = rq
            .selectFrom(`${edges} as e`)
            .innerJoin('walk as w', (join) =>
              join.onRef(`e.${near}_type`, '=', 'w.node_type').onRef(`e.${near}_id`, '=', 'w.node_id'),
            )
            .select([
              `e.${far}_type as node_type`,
              `e.${far}_id as node_id`,
              sql<number>`w.depth + 1`.as('depth'),
            ])
            .where('e.workspace_id', '=', workspaceId)
            .where('w.depth', '<', walk.depth - 1);
          if (walk.relation) step = step.where('e.relation', '=', walk.relation);
          return step;
        }),
    )
    .selectFrom(`${edges} as e`)
    .selectAll('e')
    .where('e.workspace_id', '=', workspaceId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('walk as w')
          .select(sql`1`.as('one'))
          .whereRef('w.node_type', '=', `e.${near}_type`)
          .whereRef('w.node_id', '=', `e.${near}_id`),
      ),
    );
  const filtered = walk.relation ? query.where('e.relation', '=', walk.relation) : query;
  const result = await fetchPage(filtered as any, page, 'e.id');
  return { ...result, items: (result.items as DataAgentLineageEdgesTable[]).map(toEdge) };
}

/** Edges touching any of the given nodes (a job's neighbours), at most `limit`, newest first. */
export async function edgesTouching(db: Kysely<DB>, workspaceId: string, node: NodeRef, limit: number) {
  const rows = await db
    .selectFrom('data_agent_lineage_edges')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.or([
        eb.and([eb('upstream_type', '=', node.type), eb('upstream_id', '=', node.id)]),
        eb.and([eb('downstream_type', '=', node.type), eb('downstream_id', '=', node.id)]),
      ]),
    )
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toEdge);
}
