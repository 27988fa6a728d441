import type { Kysely } from 'kysely';
import { findRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { AnalyticsEventsTable, AnalyticsPropertiesTable, AnalyticsTrackingPlansTable } from './governance-tables.ts';
import type { AnalyticsEvent, AnalyticsProperty, AnalyticsTrackingPlan } from './governance-schemas.ts';

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
