// One event's checks and the rows a batch writes: raw rows, hourly rollups summed in memory (one upsert
// per group) and daily ones, actors per object and day. Pure functions: ingest.ts runs them, the store writes.
import type { Static } from '@sinclair/typebox';
import type { FieldError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { compileSchema, nestedTooDeep, toFieldErrors } from '../../core/schema.ts';
import { actorHash } from './actor-sketch.ts';
import { AppEventInput } from './analytics-schemas.ts';
import type {
  AppEventDayRollupsTable,
  AppEventHourTotalsTable,
  AppEventRollupsTable,
  AppEventsTable,
} from './analytics-tables.ts';
import type { ActorDay } from './app-event-store.ts';

export type AppEvent = Static<typeof AppEventInput>;

export const MAX_PROPERTIES_BYTES = 32 * 1024;
export const MAX_PROPERTIES_DEPTH = 5;
const MAX_FUTURE_MS = 60 * 60 * 1000;
const DAY_MS = 86_400_000;

const validate = compileSchema(AppEventInput).strict;

export interface EventRules {
  now: Date;
  retentionDays: number;
  /** The site's apps; empty: any app. */
  allowedApps: readonly string[];
}

/**
 * What is wrong with one event, by field (empty: it can be stored). NUL is not looked for here: the pipeline
 * refuses an input holding it anywhere before the handler runs.
 */
export function eventErrors(event: unknown, rules: EventRules): FieldError[] {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    return [{ field: '(event)', message: 'must be a JSON object' }];
  }
  if (!validate(event)) return toFieldErrors(validate.errors);
  const { properties, occurred_at, app } = event as AppEvent;
  const errors: FieldError[] = [];
  if (properties !== undefined) {
    if (Buffer.byteLength(JSON.stringify(properties)) > MAX_PROPERTIES_BYTES) {
      errors.push({ field: 'properties', message: 'must be at most 32 KiB as JSON' });
    } else if (nestedTooDeep(properties, MAX_PROPERTIES_DEPTH) !== undefined) {
      errors.push({ field: 'properties', message: `must be nested at most ${MAX_PROPERTIES_DEPTH} levels` });
    }
  }
  if (occurred_at !== undefined) {
    const at = Date.parse(occurred_at);
    if (at > rules.now.getTime() + MAX_FUTURE_MS) {
      errors.push({ field: 'occurred_at', message: 'must not be more than 1 hour in the future' });
    } else if (at < rules.now.getTime() - rules.retentionDays * DAY_MS) {
      errors.push({
        field: 'occurred_at',
        message: `must be within the raw-event retention (${rules.retentionDays} days)`,
      });
    }
  }
  if (rules.allowedApps.length && !rules.allowedApps.includes(app)) {
    errors.push({ field: 'app', message: "is not one of the site's allowed apps" });
  }
  return errors;
}

export interface RowSource {
  workspaceId: string;
  sourceType: 'site' | 'api_key';
  sourceId: string;
  userAgent: string | null;
  receivedAt: string;
}

export function toRow(event: AppEvent, source: RowSource, warnings: FieldError[]): AppEventsTable {
  return {
    workspace_id: source.workspaceId,
    id: newId('aev'),
    event_id: event.event_id ?? null,
    app: event.app,
    event_name: event.event_name,
    object_type: event.object_type,
    object_id: event.object_id,
    properties: JSON.stringify(event.properties ?? {}),
    user_id: event.user_id ?? null,
    anonymous_id: event.anonymous_id ?? null,
    session_id: event.session_id ?? null,
    page_url: event.page_url ?? null,
    referrer: event.referrer ?? null,
    locale: event.locale ?? null,
    timezone: event.timezone ?? null,
    user_agent: source.userAgent,
    source_type: source.sourceType,
    source_id: source.sourceId,
    warnings: warnings.length ? JSON.stringify(warnings) : null,
    // Normalized to UTC with milliseconds, so stored times sort as text.
    occurred_at: event.occurred_at ? new Date(event.occurred_at).toISOString() : source.receivedAt,
    received_at: source.receivedAt,
  };
}

const SEP = '\u0000';

/** The batch's hourly rollups: one row per object, event name and hour, counts summed. */
export function rollupsOf(rows: AppEventsTable[]): AppEventRollupsTable[] {
  const groups = new Map<string, AppEventRollupsTable>();
  for (const row of rows) {
    const hour = `${row.occurred_at.slice(0, 13)}:00:00.000Z`;
    const key = [row.app, row.object_type, row.object_id, row.event_name, hour].join(SEP);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        workspace_id: row.workspace_id,
        app: row.app,
        object_type: row.object_type,
        object_id: row.object_id,
        event_name: row.event_name,
        hour,
        events: 1,
        first_seen: row.occurred_at,
        last_seen: row.occurred_at,
      });
      continue;
    }
    group.events += 1;
    if (row.occurred_at < group.first_seen) group.first_seen = row.occurred_at;
    if (row.occurred_at > group.last_seen) group.last_seen = row.occurred_at;
  }
  return [...groups.values()];
}

/** The batch's events per hour, app and event name, from its rollups. */
export function hourTotalsOf(rollups: AppEventRollupsTable[]): AppEventHourTotalsTable[] {
  const groups = new Map<string, AppEventHourTotalsTable>();
  for (const row of rollups) {
    const key = [row.hour, row.app, row.event_name].join(SEP);
    const group = groups.get(key);
    if (group) group.events += row.events;
    else {
      groups.set(key, {
        workspace_id: row.workspace_id,
        hour: row.hour,
        app: row.app,
        event_name: row.event_name,
        events: row.events,
      });
    }
  }
  return [...groups.values()];
}

/** The batch's daily rollups, from its hourly ones. */
export function dayRollupsOf(rollups: AppEventRollupsTable[]): AppEventDayRollupsTable[] {
  const groups = new Map<string, AppEventDayRollupsTable>();
  for (const row of rollups) {
    const day = row.hour.slice(0, 10);
    const key = [row.app, row.object_type, row.object_id, row.event_name, day].join(SEP);
    const group = groups.get(key);
    if (!group) {
      const { hour: _hour, ...rest } = row;
      groups.set(key, { ...rest, day });
      continue;
    }
    group.events += row.events;
    if (row.first_seen < group.first_seen) group.first_seen = row.first_seen;
    if (row.last_seen > group.last_seen) group.last_seen = row.last_seen;
  }
  return [...groups.values()];
}

/** The batch's actors (user_id, else anonymous_id) per object and UTC day, hashed for the sketches. */
export function actorsOf(rows: AppEventsTable[]): ActorDay[] {
  const days = new Map<string, { day: ActorDay; seen: Set<string> }>();
  for (const row of rows) {
    const actor = row.user_id ?? row.anonymous_id;
    if (actor === null) continue;
    const day = row.occurred_at.slice(0, 10);
    const key = [row.app, row.object_type, row.object_id, day].join(SEP);
    let group = days.get(key);
    if (!group) {
      const entry = { app: row.app, object_type: row.object_type, object_id: row.object_id, day, hashes: [] };
      group = { day: entry, seen: new Set() };
      days.set(key, group);
    }
    if (group.seen.has(actor)) continue;
    group.seen.add(actor);
    group.day.hashes.push(actorHash(actor));
  }
  return [...days.values()].map(({ day }) => day);
}
