// Seeds application events as ingest stores them (raw rows, hourly rollups summed per group, daily actors),
// through the module's store functions: for reads tested apart from ingest.
import type { Kysely } from 'kysely';
import { newId } from '../../src/core/ids.ts';
import type { DB } from '../../src/db/tables.ts';
import type {
  AppEventRollupsTable,
  AppEventsTable,
} from '../../src/modules/product-analytics/analytics-tables.ts';
import {
  type ActorRow,
  addActors,
  addRollups,
  insertAppEvents,
} from '../../src/modules/product-analytics/app-event-store.ts';

export interface Sent {
  app: string;
  event_name: string;
  object_type: string;
  object_id: string;
  occurred_at: string;
  properties?: Record<string, unknown>;
  user_id?: string;
  anonymous_id?: string;
  event_id?: string;
}

export async function seedAppEvents(db: Kysely<DB>, workspaceId: string, events: Sent[]): Promise<void> {
  const raw: AppEventsTable[] = [];
  const rollups = new Map<string, AppEventRollupsTable>();
  const actors = new Map<string, ActorRow>();
  for (const e of events) {
    const occurred = new Date(e.occurred_at).toISOString();
    raw.push({
      workspace_id: workspaceId,
      id: newId('aev'),
      event_id: e.event_id ?? null,
      app: e.app,
      event_name: e.event_name,
      object_type: e.object_type,
      object_id: e.object_id,
      properties: JSON.stringify(e.properties ?? {}),
      user_id: e.user_id ?? null,
      anonymous_id: e.anonymous_id ?? null,
      session_id: null,
      page_url: null,
      referrer: null,
      locale: null,
      timezone: null,
      user_agent: null,
      source_type: 'api_key',
      source_id: 'key_test',
      warnings: null,
      occurred_at: occurred,
      received_at: occurred,
    });
    const hour = `${occurred.slice(0, 13)}:00:00.000Z`;
    const group = JSON.stringify([e.app, e.object_type, e.object_id, e.event_name, hour]);
    const rollup = rollups.get(group);
    if (rollup) {
      rollup.events += 1;
      if (occurred < rollup.first_seen) rollup.first_seen = occurred;
      if (occurred > rollup.last_seen) rollup.last_seen = occurred;
    } else {
      rollups.set(group, {
        workspace_id: workspaceId,
        app: e.app,
        object_type: e.object_type,
        object_id: e.object_id,
        event_name: e.event_name,
        hour,
        events: 1,
        first_seen: occurred,
        last_seen: occurred,
      });
    }
    const actor = e.user_id ?? e.anonymous_id;
    if (actor) {
      const day = occurred.slice(0, 10);
      const row = {
        workspace_id: workspaceId,
        app: e.app,
        object_type: e.object_type,
        object_id: e.object_id,
      };
      actors.set(JSON.stringify([row, day, actor]), { ...row, day, actor });
    }
  }
  await db.transaction().execute(async (trx) => {
    await insertAppEvents(trx, raw);
    await addRollups(trx, [...rollups.values()]);
    await addActors(trx, [...actors.values()]);
  });
}

/** An event of `app:object_type:object_id`. */
export const ev = (
  object: string,
  event_name: string,
  occurred_at: string,
  extra: Partial<Sent> = {},
): Sent => {
  const [app, object_type, object_id] = object.split(':') as [string, string, string];
  return { app, object_type, object_id, event_name, occurred_at, ...extra };
};
