// Queries of dashboards and of their tiles' targets. A page of dashboards reads its tiles' targets with at
// most one query per target type (reports, metrics, insight views), archived ones included, so a tile
// whose object was archived shows it archived instead of breaking.
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { DB } from '../../../db/tables.ts';
import type { BiDashboardsTable } from './bi-object-tables.ts';

export type TileType = 'report' | 'metric' | 'insight_view';
export interface Tile {
  title: string;
  ref: { type: TileType; id: string };
  position: { x: number; y: number; w: number; h: number };
}
export interface TileTarget {
  name: string;
  archived: boolean;
  metric_status?: 'draft' | 'approved' | 'deprecated';
}

const targetKey = (type: string, id: string) => `${type}:${id}`;

/** The targets of the given refs that exist in the workspace (archived too), by "type:id". */
export async function tileTargets(
  db: Kysely<DB>,
  workspaceId: string,
  refs: Tile['ref'][],
): Promise<Map<string, TileTarget>> {
  const ids = (type: TileType) => [...new Set(refs.filter((r) => r.type === type).map((r) => r.id))];
  const found = new Map<string, TileTarget>();
  const reports = ids('report');
  if (reports.length) {
    const rows = await db
      .selectFrom('bi_reports')
      .select(['id', 'name', 'archived_at'])
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', reports)
      .execute();
    for (const r of rows)
      found.set(targetKey('report', r.id), { name: r.name, archived: r.archived_at !== null });
  }
  const metrics = ids('metric');
  if (metrics.length) {
    const rows = await db
      .selectFrom('bi_metrics')
      .select(['id', 'name', 'archived_at', 'status'])
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', metrics)
      .execute();
    for (const r of rows) {
      found.set(targetKey('metric', r.id), {
        name: r.name,
        archived: r.archived_at !== null,
        metric_status: r.status,
      });
    }
  }
  const views = ids('insight_view');
  if (views.length) {
    const rows = await db
      .selectFrom('bi_insight_views')
      .select(['id', 'name', 'archived_at'])
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', views)
      .execute();
    for (const r of rows) {
      found.set(targetKey('insight_view', r.id), { name: r.name, archived: r.archived_at !== null });
    }
  }
  return found;
}

export function toBiDashboard(row: BiDashboardsTable, targets: Map<string, TileTarget>) {
  const tiles = (JSON.parse(row.tiles) as Tile[]).map((tile) => {
    const target = targets.get(targetKey(tile.ref.type, tile.ref.id));
    return {
      ...tile,
      target: target
        ? {
            status: target.archived ? ('archived' as const) : ('active' as const),
            name: target.name,
            ...(target.metric_status ? { metric_status: target.metric_status } : {}),
          }
        : { status: 'missing' as const, name: null },
    };
  });
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    tiles,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

export const targetOf = (targets: Map<string, TileTarget>, ref: Tile['ref']) =>
  targets.get(targetKey(ref.type, ref.id));

/** A dashboard of the workspace (archived too: callers decide), with its tiles' targets. */
export async function findDashboard(db: Kysely<DB>, workspaceId: string, id: string) {
  const row = await db
    .selectFrom('bi_dashboards')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const targets = await tileTargets(
    db,
    workspaceId,
    (JSON.parse(row.tiles) as Tile[]).map((t) => t.ref),
  );
  return { row, dashboard: toBiDashboard(row, targets) };
}

export async function insertDashboard(db: Kysely<DB>, row: BiDashboardsTable): Promise<void> {
  await db.insertInto('bi_dashboards').values(row).execute();
}

export async function updateDashboardRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiDashboardsTable>,
): Promise<void> {
  await db
    .updateTable('bi_dashboards')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export async function listDashboards(db: Kysely<DB>, workspaceId: string, page: PageRequest) {
  const query = db
    .selectFrom('bi_dashboards')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  const result = await fetchPage(query, page);
  const refs = result.items.flatMap((row) => (JSON.parse(row.tiles) as Tile[]).map((t) => t.ref));
  const targets = await tileTargets(db, workspaceId, refs);
  return { ...result, items: result.items.map((row) => toBiDashboard(row, targets)) };
}
