// Row types of the product analytics tables (migration 0011). Timestamps are ISO 8601 UTC strings.

export type ValidationMode = 'off' | 'warn' | 'enforce';
export type SiteStatus = 'active' | 'paused';

/** One stored application event: append-only; on PostgreSQL partitioned by month of occurred_at. */
export interface AppEventsTable {
  workspace_id: string;
  id: string;
  /** The client's event_id (deduplicated per workspace), or null when the client sent none. */
  event_id: string | null;
  app: string;
  event_name: string;
  object_type: string;
  object_id: string;
  /** JSON object. */
  properties: string;
  user_id: string | null;
  anonymous_id: string | null;
  session_id: string | null;
  page_url: string | null;
  referrer: string | null;
  locale: string | null;
  timezone: string | null;
  user_agent: string | null;
  /** Who sent it: a site (asite_...) or an API key (its credential ID). The client address is never stored. */
  source_type: 'site' | 'api_key';
  source_id: string;
  /** JSON array of {field, message} under validation mode warn, else null. */
  warnings: string | null;
  occurred_at: string;
  received_at: string;
}

/** app_events' columns, in the order of AppEventsTable (the ingest insert and the bench's seed use them). */
export const APP_EVENT_COLUMNS = [
  'workspace_id',
  'id',
  'event_id',
  'app',
  'event_name',
  'object_type',
  'object_id',
  'properties',
  'user_id',
  'anonymous_id',
  'session_id',
  'page_url',
  'referrer',
  'locale',
  'timezone',
  'user_agent',
  'source_type',
  'source_id',
  'warnings',
  'occurred_at',
  'received_at',
] as const satisfies readonly (keyof AppEventsTable)[];

/** event_id seen per workspace: the dedupe ledger, kept as long as raw events. */
export interface AppEventIdsTable {
  workspace_id: string;
  event_id: string;
  occurred_at: string;
}

/** Hourly rollup, maintained at ingest in the same transaction as the raw events. */
export interface AppEventRollupsTable {
  workspace_id: string;
  app: string;
  object_type: string;
  object_id: string;
  event_name: string;
  /** Start of the UTC hour, ISO 8601 (2026-11-22T17:00:00.000Z). */
  hour: string;
  events: number;
  first_seen: string;
  last_seen: string;
}

/**
 * Object Analytics snapshot (object-window-store.ts): one object's events and last_seen over the rollup hours
 * [as_of_hour - window, as_of_hour) of a relative window (7d, 30d, 90d). Rebuilt hourly; reads add the hours
 * since as_of_hour and drop those that left the window, so answers stay exact.
 */
export interface AppEventObjectWindowsTable {
  workspace_id: string;
  /** The generation: the window and its as_of_hour (30d@2026-11-22T16:00:00.000Z). */
  window_name: string;
  as_of_hour: string;
  app: string;
  object_type: string;
  object_id: string;
  events: number;
  last_seen: string;
}

/** The snapshot generation the reads use, per workspace and window (7d, 30d, 90d). */
export interface AppEventObjectWindowStateTable {
  workspace_id: string;
  window_name: '7d' | '30d' | '90d';
  generation: string;
  as_of_hour: string;
}

/** An (object, hour) rollup group that ingest changed later than the hour after it (a late event). */
export interface AppEventLateRollupsTable {
  workspace_id: string;
  /** Start of the UTC hour the change was received in. */
  received_hour: string;
  app: string;
  object_type: string;
  object_id: string;
  hour: string;
}

/** Events per UTC hour of one app and event name (the timeseries without object filters). */
export interface AppEventHourTotalsTable {
  workspace_id: string;
  hour: string;
  app: string;
  event_name: string;
  events: number;
}

/** Events of an object per event name and UTC day: the hourly rollups summed by day, kept with them. */
export interface AppEventDayRollupsTable {
  workspace_id: string;
  app: string;
  object_type: string;
  object_id: string;
  event_name: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  events: number;
  first_seen: string;
  last_seen: string;
}

/** Distinct actors (user_id, else anonymous_id) of an object per UTC day, as a sketch (actor-sketch.ts). */
export interface AppEventActorSketchesTable {
  workspace_id: string;
  app: string;
  object_type: string;
  object_id: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  sketch: Buffer;
}

/**
 * Workspace settings of API-key ingest. Retention is the operator's: the workspace entitlement
 * app_event_retention_days, else WOS_APP_EVENT_RETENTION_DAYS.
 */
export interface AppEventSettingsTable {
  workspace_id: string;
  validation_mode: ValidationMode;
  updated_at: string;
}

export interface AnalyticsSitesTable {
  workspace_id: string;
  id: string;
  name: string;
  /** JSON array of origins: https://app.example.com, https://*.example.com (subdomains only). */
  allowed_origins: string;
  /** JSON array of app keys; empty: any app. */
  allowed_apps: string;
  validation_mode: ValidationMode;
  events_per_minute: number;
  daily_quota: number;
  status: SiteStatus;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/**
 * Site keys, public by design (they sit in web pages): stored as they are so reads can show them. A
 * rotated-out key keeps working until expires_at.
 */
export interface AnalyticsSiteKeysTable {
  key: string;
  workspace_id: string;
  site_id: string;
  created_at: string;
  /** Null for the current key. */
  expires_at: string | null;
}

/** Events counted per site and window (a minute, a UTC day) for the per-minute limit and daily quota. */
export interface AnalyticsSiteCountersTable {
  workspace_id: string;
  site_id: string;
  /** minute:2026-11-22T17:05 or day:2026-11-22. */
  bucket: string;
  events: number;
}

export interface ProductAnalyticsTables {
  app_events: AppEventsTable;
  app_event_ids: AppEventIdsTable;
  app_event_rollups: AppEventRollupsTable;
  app_event_hour_totals: AppEventHourTotalsTable;
  app_event_day_rollups: AppEventDayRollupsTable;
  app_event_actor_sketches: AppEventActorSketchesTable;
  app_event_object_windows: AppEventObjectWindowsTable;
  app_event_object_window_state: AppEventObjectWindowStateTable;
  app_event_late_rollups: AppEventLateRollupsTable;
  app_event_settings: AppEventSettingsTable;
  analytics_sites: AnalyticsSitesTable;
  analytics_site_keys: AnalyticsSiteKeysTable;
  analytics_site_counters: AnalyticsSiteCountersTable;
}
