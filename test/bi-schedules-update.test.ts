// Updating and archiving a scheduled artifact through the functions update_bi_object and archive_bi_object
// call (scheduled-artifacts.ts), exposed here by a test-only route over the real registry: pause and resume,
// a new cadence recomputing next_run_at from now, fields the cadence does not use, the target's workspace,
// and an archived schedule leaving reads and the scheduler.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../src/core/catalogue.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import { Strict } from '../src/core/schema.ts';
import { moduleList } from '../src/modules/module-list.ts';
import {
  archiveScheduledArtifact,
  ScheduledArtifactUpdate,
  updateScheduledArtifact,
} from '../src/modules/product-analytics/bi/scheduled-artifacts.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const PATH = '/v1/test-bi-schedules/{scheduled_artifact_id}';
const id = Type.String({ minLength: 1 });

const updateForTest = defineOperation({
  name: 'test_update_bi_scheduled_artifact',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'update',
  summary: 'Update a scheduled artifact (tests)',
  description:
    'Test-only route: applies updateScheduledArtifact, as update_bi_object does for its collection.',
  input: Strict({ scheduled_artifact_id: id, ...ScheduledArtifactUpdate.properties }),
  rest: { method: 'PATCH', path: PATH },
  responseKey: 'scheduled_artifact',
  handler: async (ctx, { scheduled_artifact_id, ...patch }) => {
    const { scheduled_artifact } = await updateScheduledArtifact(ctx, scheduled_artifact_id, patch);
    return { body: { scheduled_artifact } };
  },
});

const archiveForTest = defineOperation({
  name: 'test_archive_bi_scheduled_artifact',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'archive',
  summary: 'Archive a scheduled artifact (tests)',
  description:
    'Test-only route: applies archiveScheduledArtifact, as archive_bi_object does for its collection.',
  input: Strict({ scheduled_artifact_id: id }),
  rest: { method: 'DELETE', path: PATH },
  responseKey: 'scheduled_artifact',
  handler: async (ctx, input) => ({
    body: { scheduled_artifact: await archiveScheduledArtifact(ctx, input.scheduled_artifact_id) },
  }),
});

// The catalogue is imported first, as the app's own imports do: it loads the module list, whose modules
// import the catalogue back.
const registry = () => {
  expect(MODULES).toContain('product_analytics_bi');
  return buildRegistry(
    moduleList.map((m) =>
      m.name === 'product_analytics_bi'
        ? { ...m, operations: [...m.operations, updateForTest, archiveForTest] }
        : m,
    ) as never,
  );
};

const HOUR = 3_600_000;
const clock = new MutableClock(new Date('2026-11-21T12:00:00.000Z'));
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let queryId: string;

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const patch = (scheduleId: string, body: Record<string, unknown>) =>
  call('PATCH', `/v1/test-bi-schedules/${scheduleId}`, body);

async function savedQuery(workspace: TestWorkspace) {
  const res = await call(
    'POST',
    '/v1/bi/queries/run',
    { dataset_key: 'crm_pipeline', limit: 25 },
    workspace.apiKey,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.query.id as string;
}

async function daily() {
  const res = await call('POST', '/v1/bi/scheduled-artifacts', {
    name: 'Daily at 07:15 New York',
    target: { type: 'query', id: queryId },
    cadence: 'daily',
    hour: 7,
    minute: 15,
    timezone: 'America/New_York',
  });
  expect(res.status, res.text).toBe(201);
  return res.body.scheduled_artifact as Record<string, any>;
}

const auditedFields = async (scheduleId: string) =>
  (
    await h.db
      .selectFrom('audit_events')
      .select(['action', 'changed_fields'])
      .where('workspace_id', '=', ws.id)
      .where('target_id', '=', scheduleId)
      .orderBy('id')
      .execute()
  ).map((row) => [row.action, JSON.parse(row.changed_fields as string)]);

beforeAll(async () => {
  h = await Harness.start({ clock, registry: registry() });
  ws = await h.workspace('Updates');
  other = await h.workspace('Other');
  queryId = await savedQuery(ws);
});
afterAll(() => h.close());

describe(`scheduled artifact updates (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('pauses (no next run) and resumes from now without catching up the paused time', async () => {
    const schedule = await daily();
    // 12:00Z is 07:00 in New York: 07:15 EST today is 12:15Z.
    expect(schedule.next_run_at).toBe('2026-11-21T12:15:00.000Z');
    const paused = await patch(schedule.id, { status: 'paused' });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.scheduled_artifact).toMatchObject({ status: 'paused', next_run_at: null });

    clock.advance(3 * 24 * HOUR);
    const resumed = await patch(schedule.id, { status: 'active' });
    expect(resumed.body.scheduled_artifact).toMatchObject({
      status: 'active',
      next_run_at: '2026-11-24T12:15:00.000Z',
    });
    expect(await auditedFields(schedule.id)).toEqual([
      ['create', expect.arrayContaining(['name', 'target', 'cadence', 'hour', 'minute', 'timezone'])],
      ['update', ['status']],
      ['update', ['status']],
    ]);
  });

  it('recomputes next_run_at for a new cadence and drops the fields it does not use', async () => {
    const schedule = await daily();
    // Weekly keeps the stored 07:15 (the clock is Tuesday 24 November 2026 now).
    const weekly = await patch(schedule.id, { cadence: 'weekly', weekday: 'monday' });
    expect(weekly.body.scheduled_artifact).toMatchObject({
      cadence: 'weekly',
      weekday: 'monday',
      hour: 7,
      minute: 15,
      next_run_at: '2026-11-30T12:15:00.000Z',
    });
    const hourly = await patch(schedule.id, { cadence: 'hourly', minute: 40 });
    expect(hourly.status, hourly.text).toBe(200);
    const now = clock.now().getTime();
    expect(hourly.body.scheduled_artifact).toMatchObject({
      cadence: 'hourly',
      minute: 40,
      hour: null,
      weekday: null,
      day_of_month: null,
      timezone: 'America/New_York',
      next_run_at: new Date(Math.floor(now / HOUR) * HOUR + 40 * 60_000).toISOString(),
    });
    const monthly = await patch(schedule.id, {
      cadence: 'Monthly',
      day_of_month: 'last',
      hour: 22,
      minute: 0,
    });
    expect(monthly.body.scheduled_artifact).toMatchObject({
      cadence: 'monthly',
      day_of_month: 'last',
      hour: 22,
      // 30 November 2026 22:00 EST.
      next_run_at: '2026-12-01T03:00:00.000Z',
    });
    // Renaming keeps the next run.
    const renamed = await patch(schedule.id, { name: 'Month end, New York' });
    expect(renamed.body.scheduled_artifact.next_run_at).toBe('2026-12-01T03:00:00.000Z');
  });

  it('refuses what the new rule cannot use or lacks, and another workspace’s target, changing nothing', async () => {
    const schedule = await daily();
    // Weekly keeps the stored hour and minute but needs a weekday.
    const weekly = await patch(schedule.id, { cadence: 'weekly' });
    expect(weekly.status).toBe(400);
    expect(weekly.body.error.field_errors).toEqual([
      { field: 'weekday', message: 'is required for a weekly cadence' },
    ]);
    const misplaced = await patch(schedule.id, { weekday: 'friday' });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.error.field_errors[0].field).toBe('weekday');
    const empty = await patch(schedule.id, {});
    expect(empty.status).toBe(400);
    const foreign = await patch(schedule.id, { target: { type: 'query', id: await savedQuery(other) } });
    expect(foreign.status).toBe(404);
    const unchanged = (await call('GET', `/v1/bi/scheduled-artifacts/${schedule.id}`)).body
      .scheduled_artifact;
    expect(unchanged).toEqual(schedule);
  });

  it('archives: the schedule leaves reads, never runs again, and archiving again changes nothing', async () => {
    const schedule = await daily();
    const archived = await call('DELETE', `/v1/test-bi-schedules/${schedule.id}`);
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.scheduled_artifact).toMatchObject({
      next_run_at: null,
      archived_at: clock.now().toISOString(),
    });
    expect((await call('GET', `/v1/bi/scheduled-artifacts/${schedule.id}`)).status).toBe(404);
    const listed = await call('GET', '/v1/bi/scheduled-artifacts?limit=100');
    expect(listed.body.scheduled_artifacts.map((s: { id: string }) => s.id)).not.toContain(schedule.id);
    const again = await call('DELETE', `/v1/test-bi-schedules/${schedule.id}`);
    expect(again.body.scheduled_artifact.archived_at).toBe(archived.body.scheduled_artifact.archived_at);
    expect((await patch(schedule.id, { name: 'Back?' })).status).toBe(404);
    const other404 = await call('DELETE', `/v1/test-bi-schedules/${schedule.id}`, undefined, other.apiKey);
    expect(other404.status).toBe(404);
  });
});
