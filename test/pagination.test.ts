// Keyset pagination: a full walk, clamping, and cursors bound to their endpoint and filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
const created: string[] = [];

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  for (let i = 0; i < 75; i++) {
    const res = await h.request('POST', '/v1/tasks', {
      token: ws.apiKey,
      body: { title: `Task ${i}`, assignee_id: i % 3 === 0 ? 'agent-a' : 'agent-b' },
    });
    created.push(res.body.task.id);
  }
  for (let i = 0; i < 110; i++) {
    await h.request('POST', '/v1/activities', {
      token: ws.apiKey,
      body: { type: 'note', summary: `Note ${i}` },
    });
  }
});
afterAll(() => h.close());

const get = (url: string) => h.request('GET', url, { token: ws.apiKey });

describe('pagination', () => {
  it('walks 75 records in three pages of 25, newest first, each exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await get(`/v1/tasks?limit=25${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.tasks).toHaveLength(25);
      seen.push(...res.body.tasks.map((t: any) => t.id));
      cursor = res.body.next_cursor;
      pages++;
      if (pages === 3) expect(res.body).not.toHaveProperty('next_cursor');
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 25 and clamps a limit above 100 on REST', async () => {
    expect((await get('/v1/tasks')).body.tasks).toHaveLength(25);
    const clamped = await get('/v1/activities?limit=500');
    expect(clamped.status).toBe(200);
    expect(clamped.body.activities).toHaveLength(100);
    expect(clamped.body.next_cursor).toBeDefined();
    const rest = await get(`/v1/activities?limit=500&cursor=${clamped.body.next_cursor}`);
    expect(rest.body.activities).toHaveLength(10);
    expect(rest.body.next_cursor).toBeUndefined();
  });

  it('rejects limits below 1 or not integers', async () => {
    for (const limit of ['0', '-1', '2.5', 'ten']) {
      const res = await get(`/v1/tasks?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.error.field_errors[0].field).toBe('limit');
    }
  });

  it('binds a cursor to its endpoint and filters', async () => {
    const filtered = await get('/v1/tasks?assignee_id=agent-b&limit=10');
    expect(filtered.body.tasks.every((t: any) => t.assignee_id === 'agent-b')).toBe(true);
    const cursor = filtered.body.next_cursor;
    const same = await get(`/v1/tasks?assignee_id=agent-b&limit=10&cursor=${cursor}`);
    expect(same.status).toBe(200);
    const otherFilters = await get(`/v1/tasks?assignee_id=agent-a&cursor=${cursor}`);
    expect(otherFilters.status).toBe(400);
    expect(otherFilters.body.error.field_errors).toEqual([
      { field: 'cursor', message: expect.stringContaining('other filters') },
    ]);
    const otherEndpoint = await get(`/v1/activities?cursor=${cursor}`);
    expect(otherEndpoint.body.error.field_errors[0].field).toBe('cursor');
    const garbage = await get('/v1/tasks?cursor=not-a-cursor');
    expect(garbage.status).toBe(400);
    // A different page size is not a different filter.
    expect((await get(`/v1/tasks?assignee_id=agent-b&limit=50&cursor=${cursor}`)).status).toBe(200);
  });

  it('pages through MCP with the same cursors', async () => {
    const first = await h.callTool(ws.mcpToken, 'list_tasks', { limit: 50 });
    expect(first.body.tasks).toHaveLength(50);
    const second = await h.callTool(ws.mcpToken, 'list_tasks', { limit: 50, cursor: first.body.next_cursor });
    expect(second.body.tasks).toHaveLength(25);
    expect(second.body.next_cursor).toBeUndefined();
  });
});
