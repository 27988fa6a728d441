import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { AnalyticsEvent, AnalyticsProperty, AnalyticsTrackingPlan } from './governance-schemas.ts';
import type {
  AnalyticsEventsTable,
  AnalyticsPropertiesTable,
  AnalyticsTrackingPlansTable,
} from './governance-tables.ts';

export interface EventProperty {
  name: string;
  required: boolean;
}

export function toProperty(row: AnalyticsPropertiesTable): AnalyticsProperty {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    description: row.description,
    enum: row.enum_values ? (JSON.parse(row.enum_values) as (string | number | boolean)[]) : null,
    pattern: row.pattern,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toEventDefinition(row: AnalyticsEventsTable): AnalyticsEvent {
  return {
    id: row.id,
    app: row.app,
    name: row.name,
    description: row.description,
    properties: JSON.parse(row.properties) as EventProperty[],
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toTrackingPlan(row: AnalyticsTrackingPlansTable): AnalyticsTrackingPlan {
  return {
    id: row.id,
    name: row.name,
    app: row.app,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

export async function propertiesByName(db: Kysely<DB>, workspaceId: string, names: string[]) {
  const byName = new Map<string, AnalyticsPropertiesTable>();
  if (names.length === 0) return byName;
  const rows = await db
    .selectFrom('analytics_properties')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('name', 'in', names)
    .execute();
  for (const row of rows) byName.set(row.name, row);
  return byName;
}

export async function eventsByName(db: Kysely<DB>, workspaceId: string, app: string, names: string[]) {
  const byName = new Map<string, AnalyticsEventsTable>();
  if (names.length === 0) return byName;
  const rows = await db
    .selectFrom('analytics_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('app', '=', app)
    .where('name', 'in', names)
    .execute();
  for (const row of rows) byName.set(row.name, row);
  return byName;
}

export function findPlan(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'analytics_tracking_plans', workspaceId, id);
}

export const insertEventDefinition = (db: Kysely<DB>, row: AnalyticsEventsTable) =>
  insertRows(db, 'analytics_events', row);
export const insertProperty = (db: Kysely<DB>, row: AnalyticsPropertiesTable) =>
  insertRows(db, 'analytics_properties', row);
export const insertPlan = (db: Kysely<DB>, row: AnalyticsTrackingPlansTable) =>
  insertRows(db, 'analytics_tracking_plans', row);

export function updateEventDefinitionRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AnalyticsEventsTable>,
) {
  return updateRow(db, 'analytics_events', workspaceId, id, changes);
}

export function updatePropertyRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AnalyticsPropertiesTable>,
) {
  return updateRow(db, 'analytics_properties', workspaceId, id, changes);
}

export function updatePlanRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AnalyticsTrackingPlansTable>,
) {
  return updateRow(db, 'analytics_tracking_plans', workspaceId, id, changes);
}

/** The active tracking plan of an app (one at most), other than exceptId. */
export function activePlan(db: Kysely<DB>, workspaceId: string, app: string, exceptId?: string) {
  let query = db
    .selectFrom('analytics_tracking_plans')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('app', '=', app)
    .where('status', '=', 'active')
    .where('archived_at', 'is', null);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

export async function listEventDefinitions(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { app?: string; status?: string; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('analytics_events').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.app) query = query.where('app', '=', filters.app);
  if (filters.status) query = query.where('status', '=', filters.status as AnalyticsEventsTable['status']);
  const result = await fetchSearchPage(db, query, page, {
    table: 'analytics_events',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toEventDefinition) };
}

export async function listPlans(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { app?: string; status?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('analytics_tracking_plans')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.app) query = query.where('app', '=', filters.app);
  if (filters.status)
    query = query.where('status', '=', filters.status as AnalyticsTrackingPlansTable['status']);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toTrackingPlan) };
}
