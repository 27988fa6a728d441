import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../core/errors.ts';
import { Strict } from '../../core/schema.ts';
import { findRow } from '../../db/find-row.ts';
import { checkEvents } from '../analytics-governance/event-checker.ts';
import { AppEventInput, IngestResultSchema, MAX_BATCH } from './analytics-schemas.ts';
import {
  type AppEvent,
  actorsOf,
  dayRollupsOf,
  eventErrors,
  hourTotalsOf,
  rollupsOf,
  toRow,
} from './app-event-rows.ts';
import {
  addActorSketches,
  addDayRollups,
  addHourTotals,
  addRollups,
  awaitAggregateTurn,
  claimEventIds,
  ingestSettings,
  insertAppEvents,
} from './app-event-store.ts';
import { markLateRollups } from './object-window-store.ts';
import { siteAccess } from './site-access.ts';

interface Rejection {
  index: number;
  event_id: string | null;
  field_errors: FieldError[];
}

function eventIdOf(event: unknown): string | null {
  const id = (event as { event_id?: unknown } | null)?.event_id;
  return typeof id === 'string' ? id : null;
}

export const ingestAppEvents = defineOperation({
  name: 'ingest_app_events',
  module: 'product_analytics_bi',
  scopes: ['analytics:write'],
  kind: 'action',
  accepted: true,
  mcp: false,
  summary: 'Send application events',
  description:
    'Stores one application event, or a batch {events: [...]} of up to 1,000 (1 MiB), for Object Analytics. ' +
    'Each event is checked on its own: valid ones are stored, invalid ones come back in rejected with their ' +
    'index and field_errors (400 only when none is valid). An event_id is stored once per workspace: a ' +
    "retry counts as a duplicate. Takes an API key with analytics:write, or a site's key (?site_key=) from " +
    'its allowed origins; a JSON body may be sent as text/plain (navigator.sendBeacon).',
  input: Strict({
    events: Type.Optional(
      Type.Array(Type.Unknown(), {
        minItems: 1,
        maxItems: MAX_BATCH,
        description: 'A batch: each item is an event shaped like the single-event body, checked on its own.',
      }),
    ),
    ...Type.Partial(AppEventInput).properties,
  }),
  rest: { method: 'POST', path: '/v1/insights/app-events', browser: siteAccess },
  responseKey: 'accepted',
  response: IngestResultSchema,
  handler: async (ctx, input) => {
    // idempotency_key (every write takes one) does nothing here: event_id is what deduplicates.
    const {
      events: batch,
      idempotency_key: _key,
      ...single
    } = input as typeof input & {
      idempotency_key?: string;
    };
    const beside = Object.keys(single)[0];
    if (batch && beside) {
      throw validationFailed([
        { field: beside, message: 'cannot be sent beside events: send one event, or a batch in events' },
      ]);
    }
    const list: unknown[] = batch ?? [single];
    // The site row alone (its keys were checked by authentication).
    const site =
      ctx.actor.type === 'site_key'
        ? await findRow(ctx.db, 'analytics_sites', ctx.workspaceId, ctx.actor.credentialId!)
        : undefined;
    const settings = await ingestSettings(ctx.db, ctx.workspaceId);
    const rules = {
      now: new Date(ctx.now),
      retentionDays: settings.retentionDays ?? ctx.config.appEventRetentionDays,
      allowedApps: site ? (JSON.parse(site.allowed_apps) as string[]) : [],
    };

    const rejected: Rejection[] = [];
    let valid: { index: number; event: AppEvent; warnings: FieldError[] }[] = [];
    list.forEach((event, index) => {
      const errors = eventErrors(event, rules);
      if (errors.length) rejected.push({ index, event_id: eventIdOf(event), field_errors: errors });
      else valid.push({ index, event: event as AppEvent, warnings: [] });
    });

    // Tracking plans: warn stores the event with its problems, enforce rejects it.
    const mode = site?.validation_mode ?? settings.validationMode;
    if (mode !== 'off' && valid.length) {
      const checks = await checkEvents(
        ctx.db,
        ctx.workspaceId,
        valid.map((v) => v.event),
      );
      valid = valid.flatMap((v, i) => {
        const { errors, warnings } = checks[i]!;
        if (mode === 'enforce' && errors.length) {
          rejected.push({ index: v.index, event_id: v.event.event_id ?? null, field_errors: errors });
          return [];
        }
        return [{ ...v, warnings: [...errors, ...warnings] }];
      });
    }
    rejected.sort((a, b) => a.index - b.index);
    if (!valid.length) {
      const prefix = (index: number, field: string) => (batch ? `events[${index}].${field}` : field);
      throw validationFailed(
        rejected.flatMap((r) => r.field_errors.map((e) => ({ ...e, field: prefix(r.index, e.field) }))),
        batch ? 'No event of the batch could be stored.' : 'The event could not be stored.',
      );
    }

    // An event_id seen earlier in the batch or stored before is a duplicate: stored once, counted apart.
    const inBatch = new Set<string>();
    const first = valid.filter(({ event }) => {
      if (event.event_id === undefined) return true;
      if (inBatch.has(event.event_id)) return false;
      inBatch.add(event.event_id);
      return true;
    });
    const claimed = await claimEventIds(
      ctx.db,
      ctx.workspaceId,
      first.flatMap(({ event }) =>
        event.event_id === undefined
          ? []
          : [{ event_id: event.event_id, occurred_at: event.occurred_at ?? ctx.now }],
      ),
    );
    const fresh = first.filter(({ event }) => event.event_id === undefined || claimed.has(event.event_id));

    const source = {
      workspaceId: ctx.workspaceId,
      sourceType: site ? ('site' as const) : ('api_key' as const),
      sourceId: ctx.actor.credentialId!,
      userAgent: ctx.userAgent,
      receivedAt: ctx.now,
    };
    const rows = fresh.map(({ event, warnings }) => toRow(event, source, warnings));
    await insertAppEvents(ctx.db, rows);
    const rollups = rollupsOf(rows);
    await awaitAggregateTurn(ctx.db, ctx.workspaceId);
    await addRollups(ctx.db, rollups);
    await addHourTotals(ctx.db, hourTotalsOf(rollups));
    // Late events (hours before the previous one) only: Object Analytics snapshots recount their objects.
    await markLateRollups(ctx.db, ctx.workspaceId, rollups, ctx.now);
    await addDayRollups(ctx.db, dayRollupsOf(rollups));
    await addActorSketches(ctx.db, ctx.workspaceId, actorsOf(rows));
    ctx.audit({ targetType: 'app_events', targetId: source.sourceId, action: 'ingest' });
    return {
      body: { accepted: rows.length, duplicates: valid.length - rows.length, rejected },
      // Usage is counted per 1,000 stored events (at least one unit a call).
      units: Math.max(1, Math.ceil(rows.length / 1000)),
    };
  },
});
