// Dashboards (issue 12 item 5): tiles that show reports, metrics or insight views on a 12-column grid.
// Every tile's target must exist, live, in this workspace when the tiles are saved (resource_not_found,
// checked with one query per target type); an object archived later stays on its tiles, shown archived.
import { type Static, Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, fail, notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { BiDashboardSchema, TilePositionSchema, TileRefSchema } from './bi-object-schemas.ts';
import type { BiDashboardsTable } from './bi-object-tables.ts';
import {
  findDashboard,
  insertDashboard,
  listDashboards,
  type Tile,
  targetOf,
  tileTargets,
  updateDashboardRow,
} from './dashboard-store.ts';

const DASHBOARD = 'bi_dashboard';
const GRID_COLUMNS = 12;

export const biDashboardRecord = defineRecordType({
  type: DASHBOARD,
  module: 'product_analytics_bi',
  table: 'bi_dashboards',
  collection: '/v1/bi/dashboards',
  key: 'dashboard',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  load: async (db, workspaceId, id) => {
    const found = await findDashboard(db, workspaceId, id);
    return found && { archived_at: found.row.archived_at, dashboard: found.dashboard };
  },
  schema: BiDashboardSchema,
  toResource: (loaded: { dashboard: Static<typeof BiDashboardSchema> }) => loaded.dashboard,
});

const TileInput = Strict({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  ref: TileRefSchema,
  position: TilePositionSchema,
});
const tilesInput = Type.Array(TileInput, {
  maxItems: 50,
  description: 'The tiles, in reading order: each a title, a ref {type, id} and a grid position.',
});
const nameInput = Type.String({ minLength: 1, maxLength: 200 });
const descriptionInput = Type.String({ maxLength: 2000 });

const overlap = (a: Tile['position'], b: Tile['position']) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Positions fit the grid and do not overlap; every target exists, live, here (one query per type). */
async function checkTiles(ctx: OperationContext, tiles: Tile[]): Promise<void> {
  const errors: FieldError[] = [];
  for (const [i, tile] of tiles.entries()) {
    const p = tile.position;
    if (p.x + p.w > GRID_COLUMNS) {
      errors.push({ field: `tiles[${i}].position.w`, message: `x + w must be at most ${GRID_COLUMNS}` });
    }
    const other = tiles.findIndex((t, j) => j < i && overlap(t.position, p));
    if (other >= 0) errors.push({ field: `tiles[${i}].position`, message: `overlaps tiles[${other}]` });
  }
  if (errors.length) throw validationFailed(errors);
  const targets = await tileTargets(
    ctx.db,
    ctx.workspaceId,
    tiles.map((t) => t.ref),
  );
  for (const [i, tile] of tiles.entries()) {
    const target = targetOf(targets, tile.ref);
    if (!target || target.archived) {
      throw fail('resource_not_found', {
        message: `tiles[${i}].ref: the ${tile.ref.type} ${tile.ref.id} does not exist in this workspace.`,
      });
    }
  }
}

export const createBiDashboard = defineOperation({
  name: 'create_bi_dashboard',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  creates: DASHBOARD,
  summary: 'Create a BI dashboard',
  description:
    'Creates a dashboard: name, description and up to 50 tiles, each {title, ref: {type: report | metric | ' +
    'insight_view, id}, position: {x 0-11, y, w, h}} on a 12-column grid (tiles may not overlap). Every ' +
    "referenced object must exist in this workspace (another workspace's or a missing ID is " +
    'resource_not_found). Answers the dashboard with each tile target status.',
  input: Strict({
    name: nameInput,
    description: Type.Optional(descriptionInput),
    tiles: Type.Optional(tilesInput),
  }),
  rest: { method: 'POST', path: '/v1/bi/dashboards' },
  responseKey: 'dashboard',
  handler: async (ctx, input) => {
    const tiles = (input.tiles ?? []) as Tile[];
    await checkTiles(ctx, tiles);
    const row: BiDashboardsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('bidash'),
      name: input.name,
      description: input.description ?? null,
      tiles: JSON.stringify(tiles),
      created_by: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await insertDashboard(ctx.db, row);
    const { dashboard } = (await findDashboard(ctx.db, ctx.workspaceId, row.id))!;
    ctx.audit({ targetType: DASHBOARD, targetId: row.id, changedFields: inputFields(input) });
    return { body: { dashboard }, createdId: row.id };
  },
});

export const listBiDashboards = defineOperation({
  name: 'list_bi_dashboards',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  summary: 'List BI dashboards',
  description:
    'Lists dashboards, newest first, with their tiles; each tile shows its target status: active, archived ' +
    '(the report, metric or insight view was archived since: still shown) or missing. Archived dashboards ' +
    'are not listed.',
  input: Strict({ ...pageInput }),
  rest: { method: 'GET', path: '/v1/bi/dashboards' },
  responseKey: 'dashboards',
  handler: async (ctx, input) => {
    const page = await listDashboards(ctx.db, ctx.workspaceId, pageRequest('list_bi_dashboards', input));
    return { body: listBody('dashboards', page) };
  },
});

/** What update_bi_object may change on a dashboard (collection dashboards); tiles are replaced whole. */
export const DashboardUpdate = Strict({
  name: Type.Optional(nameInput),
  description: Type.Optional(Type.Union([descriptionInput, Type.Null()])),
  tiles: Type.Optional(tilesInput),
});
const DASHBOARD_COLUMNS = ['name', 'description', 'tiles'] as const;

export async function updateDashboard(
  ctx: OperationContext,
  id: string,
  patch: Static<typeof DashboardUpdate>,
) {
  requireSomeField(patch, DASHBOARD_COLUMNS);
  const found = await findDashboard(ctx.db, ctx.workspaceId, id);
  if (!found || found.row.archived_at) throw notFound('dashboard');
  if (patch.tiles) await checkTiles(ctx, patch.tiles as Tile[]);
  const { changes, changed } = diffFields<BiDashboardsTable>(
    found.row,
    { ...patch, tiles: patch.tiles && JSON.stringify(patch.tiles) },
    DASHBOARD_COLUMNS,
  );
  if (!changed.length) return found.dashboard;
  await updateDashboardRow(ctx.db, ctx.workspaceId, id, { ...changes, updated_at: ctx.now });
  ctx.audit({ targetType: DASHBOARD, targetId: id, changedFields: changed });
  return (await findDashboard(ctx.db, ctx.workspaceId, id))!.dashboard;
}

export async function archiveDashboard(ctx: OperationContext, id: string) {
  const found = await findDashboard(ctx.db, ctx.workspaceId, id);
  if (!found) throw notFound('dashboard');
  const archived = found.row.archived_at !== null;
  if (!archived) {
    await updateDashboardRow(ctx.db, ctx.workspaceId, id, { archived_at: ctx.now, updated_at: ctx.now });
  }
  ctx.audit({ targetType: DASHBOARD, targetId: id, changedFields: archived ? [] : ['archived_at'] });
  const dashboard = archived
    ? found.dashboard
    : { ...found.dashboard, archived_at: ctx.now, updated_at: ctx.now };
  return { object: dashboard, archived_at: dashboard.archived_at! };
}
