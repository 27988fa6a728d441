// Hostile input is a 400, never a 500: forged cursors whose key has the wrong shape, and NUL characters
// anywhere in a body, a path ID or a query parameter (PostgreSQL text refuses U+0000).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type HttpResult, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });

function expectFieldError(res: HttpResult, field: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.field_errors.map((e: { field: string }) => e.field)).toContain(field);
  expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
}

/**
 * A cursor the endpoint issued with its key replaced: what any client can forge, since cursors are plain
 * base64url JSON. The key keeps the encoding the endpoint used (a JSON value, or JSON text inside it).
 */
function forge(cursor: string, key: unknown): string {
  const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  const k = typeof payload.k === 'string' ? JSON.stringify(key) : key;
  return Buffer.from(JSON.stringify({ ...payload, k })).toString('base64url');
}

async function firstCursor(url: string): Promise<string> {
  const res = await get(url);
  expect(res.status, res.text).toBe(200);
  expect(res.body.next_cursor).toBeTypeOf('string');
  return res.body.next_cursor;
}

describe('cursors whose key has the wrong shape', () => {
  it('are validation_failed on cursor for contacts (one text key)', async () => {
    for (const name of ['Ada', 'Grace']) expect((await post('/v1/contacts', { name })).status).toBe(201);
    const cursor = await firstCursor('/v1/contacts?limit=1');
    expect((await get(`/v1/contacts?limit=1&cursor=${cursor}`)).status).toBe(200);
    const shapes = [
      { a: 1 },
      true,
      'con_x',
      null,
      [{ a: 1 }],
      [true],
      [null],
      ['con_a', 'con_b'],
      [],
      [1],
      ['a\u0000b'],
    ];
    for (const key of shapes) {
      expectFieldError(await get(`/v1/contacts?limit=1&cursor=${forge(cursor, key)}`), 'cursor');
    }
  });

  it('are validation_failed on cursor for project tasks in board order (position, id)', async () => {
    const project = (await post('/v1/projects', { name: 'Cursor', key: 'CUR' })).body.project;
    const board = (await post('/v1/projects/boards', { project_id: project.id, name: 'Board' })).body
      .project_board;
    const column = (await post('/v1/projects/board-columns', { board_id: board.id, name: 'Todo' })).body
      .project_board_column;
    for (const title of ['One', 'Two']) {
      expect(
        (await post('/v1/projects/tasks', { project_id: project.id, title, column_id: column.id })).status,
      ).toBe(201);
    }
    const url = `/v1/projects/tasks?column_id=${column.id}&limit=1`;
    const cursor = await firstCursor(url);
    const next = await get(`${url}&cursor=${cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.project_tasks).toHaveLength(1);
    const taskId = next.body.project_tasks[0].id;
    // Text where the position is an integer, fractions, beyond PostgreSQL's integer, the wrong arity,
    // and the key of another keyset (the newest-first list's single ID).
    const shapes = [
      ['zero', taskId],
      [0.5, taskId],
      [2 ** 40, taskId],
      [0, { id: taskId }],
      [0],
      [0, taskId, 1],
      [taskId],
      { 0: 0 },
    ];
    for (const key of shapes) expectFieldError(await get(`${url}&cursor=${forge(cursor, key)}`), 'cursor');
  });

  it('are validation_failed on cursor for lists that page in memory (deal stages, event types)', async () => {
    const stages = await firstCursor('/v1/deal-stages?limit=1');
    for (const key of [['1', 0, 'x'], [1, 0], { position: 1 }]) {
      expectFieldError(await get(`/v1/deal-stages?limit=1&cursor=${forge(stages, key)}`), 'cursor');
    }
    const types = await firstCursor('/v1/integrations/events?limit=1');
    for (const key of [[1], [['a']], 'contact.created']) {
      expectFieldError(await get(`/v1/integrations/events?limit=1&cursor=${forge(types, key)}`), 'cursor');
    }
  });

  it('are refused the same way over MCP', async () => {
    const cursor = await firstCursor('/v1/contacts?limit=1');
    const call = await h.callTool(ws.mcpToken, 'search_contacts', {
      limit: 1,
      cursor: forge(cursor, [{ a: 1 }]),
    });
    expect(call.result.isError).toBe(true);
    expect(call.body.error.code).toBe('validation_failed');
    expect(call.body.error.field_errors[0].field).toBe('cursor');
  });
});

describe('NUL characters', () => {
  it('in a body string, nested or in a property name, are validation_failed naming the field', async () => {
    expectFieldError(await post('/v1/contacts', { name: 'Ada\u0000Lovelace' }), 'name');
    const invoice = (lineName: string, extra: Record<string, unknown> = {}) =>
      post('/v1/invoices', {
        invoice_number: 'INV-NUL',
        line_items: [
          { kind: 'service', name: 'ok', unit_amount_cents: 1 },
          { kind: 'service', name: lineName, unit_amount_cents: 1 },
        ],
        ...extra,
      });
    expectFieldError(await invoice('bad\u0000'), 'line_items[1].name');
    expectFieldError(await invoice('ok', { custom_fields: { 'k\u0000': 1 } }), 'custom_fields');
    expectFieldError(await invoice('ok', { custom_fields: { note: '\u0000' } }), 'custom_fields.note');
    const contacts = await get('/v1/contacts?query=Ada');
    expect(contacts.body.contacts.filter((c: { name: string }) => c.name.includes('\u0000'))).toEqual([]);
    expect((await get('/v1/invoices')).body.invoices).toEqual([]);
  });

  it('in a path ID or a query parameter, are validation_failed, not a database error', async () => {
    expectFieldError(await get('/v1/contacts/%00%27'), 'contact_id');
    expectFieldError(await get('/v1/tasks/tsk_%00'), 'task_id');
    expectFieldError(
      await h.request('PATCH', '/v1/tasks/%00', { token: ws.apiKey, body: { status: 'completed' } }),
      'task_id',
    );
    expectFieldError(await get('/v1/contacts?query=%00'), 'query');
    expectFieldError(await get('/v1/contacts?company_id=cmp_%00'), 'company_id');
    expectFieldError(await get('/v1/history?target_type=contact&target_id=%00'), 'target_id');
  });

  it('on the operator API and signed asset URLs, are validation_failed too', async () => {
    expectFieldError(await h.admin('GET', '/workspaces/ws_%00'), 'workspace_id');
    expectFieldError(await h.admin('POST', '/workspaces', { name: 'x\u0000' }), 'name');
    expectFieldError(
      await h.request('PUT', '/v1/assets/ast_%00/content?expires=1&signature=x', { rawBody: 'x' }),
      'asset_id',
    );
  });

  it('in MCP arguments or a tool name, are validation_failed, and usage recording carries on', async () => {
    const call = await h.callTool(ws.mcpToken, 'create_contact', { name: 'x\u0000' });
    expect(call.result.isError).toBe(true);
    expect(call.body.error.field_errors).toEqual([
      { field: 'name', message: expect.stringContaining('NUL') },
    ]);
    const named = await h.mcp(ws.mcpToken, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'search_contacts\u0000', arguments: {} },
    });
    expect(named.body.error.code).toBe(-32602);
    expect(named.body.error.data.error.field_errors[0].field).toBe('name');
    // The call events queued with these failures are written (a NUL would fail the whole batch on PostgreSQL).
    const ok = await get('/v1/contacts?limit=1');
    await h.flushUsage();
    const events = await h.db
      .selectFrom('call_events')
      .select('request_id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(events.map((e) => e.request_id)).toContain(ok.headers['x-request-id']);
    expect(events.map((e) => e.request_id)).toContain(call.http.headers['x-request-id']);
  });
});
