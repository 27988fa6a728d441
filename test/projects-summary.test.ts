// get_workspace_summary sections of projects, products and calendar: correct counts, one query per
// section, and index-only plans on a workspace holding 100,000 records (50,000 tasks, 50,000 events).
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarCounts } from '../src/modules/calendar/calendar-summary-store.ts';
import { productCounts } from '../src/modules/products/product-summary-store.ts';
import { projectCounts } from '../src/modules/projects/project-summary-store.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
const BULK = 50_000;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = async (url: string, body: unknown) => {
  const res = await h.request('POST', url, { token: ws.apiKey, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

async function bulkInsert(workspaceId: string, projectId: string, calendarId: string) {
  const now = h.clock.now().toISOString();
  await sql`
    insert into project_tasks (workspace_id, id, project_id, number, key, title, status, priority, labels, created_at, updated_at)
    with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ${BULK})
    select ${workspaceId}, 'ptk_bulk_' || n, ${projectId}, n + 1, 'BULK-' || n, 'Bulk task',
      case when n % 2 = 0 then 'done' else 'todo' end, 'none', '[]', ${now}, ${now}
    from seq`.execute(h.db);
  await sql`
    insert into calendar_events (workspace_id, id, calendar_id, title, all_day, starts_at, ends_at, timezone, recurring,
      excluded_dates, attendees, status, created_at, updated_at)
    with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ${BULK})
    select ${workspaceId}, 'cev_bulk_' || n, ${calendarId}, 'Past event', 0, '2020-01-01T10:00:00.000Z',
      '2020-01-01T11:00:00.000Z', 'UTC', 0, '[]', '[]', 'confirmed', ${now}, ${now}
    from seq`.execute(h.db);
  await sql`update projects set next_task_number = ${BULK + 1} where id = ${projectId}`.execute(h.db);
}

describe('workspace summary', () => {
  it('counts active projects, open and overdue tasks, products and upcoming occurrences', async () => {
    const now = h.clock.now(); // 2026-11-21T12:00:00Z
    const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString();
    const active = (await post('/v1/projects', { name: 'Active', key: 'ACT' })).project;
    await post('/v1/projects', { name: 'Planned', key: 'PLN', status: 'planned' });
    const done = (await post('/v1/projects', { name: 'Done', key: 'DON', status: 'completed' })).project;
    await post('/v1/projects/tasks', { project_id: active.id, title: 'open' });
    await post('/v1/projects/tasks', {
      project_id: active.id,
      title: 'overdue',
      due_at: inDays(-1),
      status: 'in_progress',
    });
    await post('/v1/projects/tasks', {
      project_id: active.id,
      title: 'later',
      due_at: inDays(3),
      status: 'backlog',
    });
    await post('/v1/projects/tasks', {
      project_id: active.id,
      title: 'finished',
      status: 'done',
      due_at: inDays(-3),
    });
    await post('/v1/projects/tasks', { project_id: done.id, title: 'open in a completed project' });

    const product = (await post('/v1/products', { name: 'P', key: 'pp' })).product;
    await post('/v1/products', { name: 'Old', key: 'old', status: 'sunset' });
    await post('/v1/products/releases', { product_id: product.id, version: '1.0.0', status: 'released' });
    await post('/v1/products/releases', { product_id: product.id, version: '1.1.0', status: 'in_progress' });
    await post('/v1/products/releases', { product_id: product.id, version: '2.0.0' });
    await post('/v1/products/roadmap-items', { product_id: product.id, title: 'a', status: 'in_progress' });
    await post('/v1/products/roadmap-items', { product_id: product.id, title: 'b', status: 'idea' });

    const calendar = (await post('/v1/calendar/calendars', { name: 'C', timezone: 'Europe/Berlin' }))
      .calendar;
    const event = (body: Record<string, unknown>) =>
      post('/v1/calendar/events', { calendar_id: calendar.id, title: 'e', ...body });
    await event({ starts_at: inDays(1), ends_at: inDays(1.1) });
    await event({ starts_at: inDays(6.9), ends_at: inDays(7.5) });
    await event({ starts_at: inDays(8), ends_at: inDays(8.1) });
    await event({ starts_at: inDays(2), ends_at: inDays(2.1), status: 'canceled' });
    await event({ starts_at: inDays(-1), ends_at: inDays(1) }); // under way, not upcoming
    // Daily from 10 days ago: 7 occurrences start in the next 7 days, one of them excluded.
    await event({
      starts_at: '2026-11-11T15:00:00Z',
      ends_at: '2026-11-11T16:00:00Z',
      recurrence: 'FREQ=DAILY',
      excluded_dates: ['2026-11-23'],
    });
    // A finished series is not even loaded (series_ends_at in the past).
    await event({
      starts_at: '2026-10-01T15:00:00Z',
      ends_at: '2026-10-01T16:00:00Z',
      recurrence: 'FREQ=DAILY;COUNT=3',
    });
    await event({ all_day: true, start_date: '2026-11-24', recurrence: 'FREQ=WEEKLY;COUNT=2' });

    await bulkInsert(ws.id, done.id, calendar.id);

    const res = await h.request('GET', '/v1/workspace', { token: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.workspace.summary.projects).toEqual({
      active_projects: 1,
      open_tasks: 3,
      overdue_tasks: 1,
    });
    expect(res.body.workspace.summary.products).toEqual({
      active_products: 1,
      upcoming_releases: 2,
      roadmap_items_in_flight: 1,
    });
    expect(res.body.workspace.summary.calendar).toEqual({ calendars: 1, upcoming_events: 2 + 6 + 1 });

    const scoped = await h.createCredential(ws.id, 'api_key', ['crm:read', 'calendar:read']);
    const partial = await h.request('GET', '/v1/workspace', { token: scoped.token });
    expect(Object.keys(partial.body.workspace.summary)).toContain('calendar');
    expect(partial.body.workspace.summary.projects).toBeUndefined();
    expect(partial.body.workspace.summary.products).toBeUndefined();
  });

  it.skipIf(usingPostgres)('runs one query per section, reading indexes only', async () => {
    const file = new SQLite(path.join(h.config.dataDir, 'wos.sqlite'), { readonly: true });
    const captured: CompiledQuery[] = [];
    const db = new Kysely<any>({
      dialect: new SqliteDialect({ database: file }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    const now = h.clock.now().toISOString();
    const sections = { projects: projectCounts, products: productCounts, calendar: calendarCounts };
    for (const [name, compute] of Object.entries(sections)) {
      captured.length = 0;
      await compute(db, ws.id, now);
      expect(captured, name).toHaveLength(1);
      const plan = file
        .prepare(`explain query plan ${captured[0]!.sql}`)
        .all(...(captured[0]!.parameters as unknown[])) as { detail: string }[];
      for (const { detail } of plan) {
        // A table or index scan would grow with the workspace; every step must be an index search.
        expect(detail, `${name}: ${plan.map((p) => p.detail).join(' | ')}`).not.toMatch(
          /^SCAN (?!counts\b|series\b|CONSTANT)/,
        );
      }
    }
    await db.destroy();
  });
});
