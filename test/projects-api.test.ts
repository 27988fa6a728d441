// Projects, boards, columns and project tasks through the real app: rules, events, audit, both surfaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const fieldsOf = (res: { body: any }) => res.body.error.field_errors.map((e: any) => e.field);

async function project(key: string, extra: Record<string, unknown> = {}) {
  const res = await post('/v1/projects', { name: `Project ${key}`, key, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.project;
}

async function board(
  projectId: string,
  columns: { name: string; wip_limit?: number; task_status?: string }[],
) {
  const created = (await post('/v1/projects/boards', { project_id: projectId, name: 'Board' })).body
    .project_board;
  const cols = [];
  for (const column of columns) {
    const res = await post('/v1/projects/board-columns', { board_id: created.id, ...column });
    expect(res.status, res.text).toBe(201);
    cols.push(res.body.project_board_column);
  }
  return { board: created, columns: cols };
}

const columnOrder = async (columnId: string) =>
  (
    await h.db
      .selectFrom('project_tasks')
      .select(['key', 'position'])
      .where('workspace_id', '=', ws.id)
      .where('column_id', '=', columnId)
      .orderBy('position')
      .execute()
  ).map((r) => [r.key, Number(r.position)]);

describe('projects', () => {
  it('creates a project with defaults, an audit event and project.created', async () => {
    const res = await post('/v1/projects', {
      name: 'Website',
      key: 'WEB',
      start_date: '2026-01-01',
      target_date: '2026-06-30',
      owner_id: 'usr_1',
    });
    expect(res.status).toBe(201);
    expect(res.body.project).toMatchObject({
      key: 'WEB',
      status: 'active',
      owner_id: 'usr_1',
      description: null,
    });
    const id = res.body.project.id;
    const row = await h.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ workspace_id: ws.id, key: 'WEB', next_task_number: 0 });
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(audit).toMatchObject([{ target_type: 'project', target_id: id, action: 'create' }]);
    const events = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['project.created']);
    expect((await get(`/v1/projects/${id}`)).body.project).toEqual(res.body.project);
  });

  it('validates key, status and dates, and refuses a key already used', async () => {
    for (const key of ['web', 'W', 'TOOLONGKEY12', '1AB', 'WE B']) {
      const res = await post('/v1/projects', { name: 'x', key });
      expect(res.status, key).toBe(400);
      expect(fieldsOf(res)).toContain('key');
    }
    const dates = await post('/v1/projects', {
      name: 'x',
      key: 'DAT',
      start_date: '2026-05-01',
      target_date: '2026-04-01',
    });
    expect(dates.body.error.field_errors).toEqual([
      { field: 'target_date', message: 'must not be before start_date' },
    ]);
    expect((await post('/v1/projects', { name: 'x', key: 'BAD', status: 'done' })).status).toBe(400);
    await project('DUP');
    const dup = await post('/v1/projects', { name: 'Other', key: 'DUP' });
    expect(dup.status).toBe(400);
    expect(fieldsOf(dup)).toEqual(['key']);
    const count = await h.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('key', '=', 'DUP')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('updates fields, clears with null, emits status_changed, and checks dates against stored values', async () => {
    const p = await project('UPD', { start_date: '2026-03-01', description: 'd' });
    const res = await patch(`/v1/projects/${p.id}`, { status: 'on_hold', description: null });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ status: 'on_hold', description: null, key: 'UPD' });
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['project.status_changed']);
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.changed_fields).sort()).toEqual(['description', 'status']);
    const bad = await patch(`/v1/projects/${p.id}`, { target_date: '2026-02-01' });
    expect(bad.body.error.field_errors[0].field).toBe('target_date');
    expect((await patch(`/v1/projects/${p.id}`, { key: 'NEW' })).status).toBe(400);
    expect((await patch(`/v1/projects/${p.id}`, {})).status).toBe(400);
    expect((await patch('/v1/projects/prj_missing', { name: 'x' })).status).toBe(404);
  });

  it('lists with status, owner and query filters', async () => {
    await project('LSA', { owner_id: 'usr_list', name: 'Listing alpha' });
    await project('LSB', { owner_id: 'usr_list', status: 'planned', name: 'Listing beta' });
    const byOwner = await get('/v1/projects?owner_id=usr_list');
    expect(byOwner.body.projects.map((p: any) => p.key)).toEqual(['LSB', 'LSA']);
    const planned = await get('/v1/projects?owner_id=usr_list&status=planned');
    expect(planned.body.projects.map((p: any) => p.key)).toEqual(['LSB']);
    const query = await get('/v1/projects?query=listing%20ALPHA');
    expect(query.body.projects.map((p: any) => p.key)).toEqual(['LSA']);
  });
});

describe('boards and columns', () => {
  it('keeps column positions gap-free when inserting and moving columns', async () => {
    const p = await project('COL');
    const { board: b, columns } = await board(p.id, [{ name: 'Todo' }, { name: 'Doing' }, { name: 'Done' }]);
    expect(columns.map((c) => c.position)).toEqual([0, 1, 2]);
    const first = await post('/v1/projects/board-columns', { board_id: b.id, name: 'Inbox', position: 0 });
    expect(first.body.project_board_column).toMatchObject({
      position: 0,
      project_id: p.id,
      task_count: 0,
      over_wip_limit: false,
    });
    const far = await post('/v1/projects/board-columns', { board_id: b.id, name: 'Archive', position: 99 });
    expect(far.body.project_board_column.position).toBe(4);
    const names = async () =>
      (await get(`/v1/projects/board-columns?board_id=${b.id}`)).body.project_board_columns.map(
        (c: any) => `${c.position}:${c.name}`,
      );
    expect(await names()).toEqual(['0:Inbox', '1:Todo', '2:Doing', '3:Done', '4:Archive']);
    const moved = await patch(`/v1/projects/board-columns/${far.body.project_board_column.id}`, {
      position: 1,
      name: 'Later',
    });
    expect(moved.body.project_board_column).toMatchObject({ position: 1, name: 'Later' });
    expect(await names()).toEqual(['0:Inbox', '1:Later', '2:Todo', '3:Doing', '4:Done']);
    await patch(`/v1/projects/board-columns/${first.body.project_board_column.id}`, { position: 10 });
    expect(await names()).toEqual(['0:Later', '1:Todo', '2:Doing', '3:Done', '4:Inbox']);
    const page = await get(`/v1/projects/board-columns?board_id=${b.id}&limit=2`);
    const next = await get(
      `/v1/projects/board-columns?board_id=${b.id}&limit=2&cursor=${page.body.next_cursor}`,
    );
    expect(
      [...page.body.project_board_columns, ...next.body.project_board_columns].map((c: any) => c.position),
    ).toEqual([0, 1, 2, 3]);
  });

  it('updates and lists boards, and 404s on unknown references', async () => {
    const p = await project('BRD');
    const created = await post('/v1/projects/boards', { project_id: p.id, name: 'Sprint', description: 'x' });
    expect(created.status).toBe(201);
    const updated = await patch(`/v1/projects/boards/${created.body.project_board.id}`, {
      name: 'Sprint 2',
      description: null,
    });
    expect(updated.body.project_board).toMatchObject({
      name: 'Sprint 2',
      description: null,
      project_id: p.id,
    });
    const list = await get(`/v1/projects/boards?project_id=${p.id}`);
    expect(list.body.project_boards.map((b: any) => b.name)).toEqual(['Sprint 2']);
    expect((await post('/v1/projects/boards', { project_id: 'prj_nope', name: 'x' })).status).toBe(404);
    expect((await post('/v1/projects/board-columns', { board_id: 'pbd_nope', name: 'x' })).status).toBe(404);
  });
});

describe('project tasks', () => {
  it('numbers tasks per project and places them on a board', async () => {
    const p = await project('TSK');
    const other = await project('OTH');
    const { board: b, columns } = await board(p.id, [
      { name: 'Todo' },
      { name: 'Doing', wip_limit: 1 },
      { name: 'Done', task_status: 'done' },
    ]);
    const t1 = (
      await post('/v1/projects/tasks', { project_id: p.id, title: 'One', column_id: columns[0].id })
    ).body.project_task;
    const t2 = (
      await post('/v1/projects/tasks', {
        project_id: p.id,
        title: 'Two',
        board_id: b.id,
        labels: ['Bug', 'ui'],
      })
    ).body.project_task;
    const t3 = (
      await post('/v1/projects/tasks', {
        project_id: p.id,
        title: 'Three',
        column_id: columns[0].id,
        position: 0,
      })
    ).body.project_task;
    const o1 = (await post('/v1/projects/tasks', { project_id: other.id, title: 'Other one' })).body
      .project_task;
    expect([t1.key, t2.key, t3.key, o1.key]).toEqual(['TSK-1', 'TSK-2', 'TSK-3', 'OTH-1']);
    expect(t2).toMatchObject({
      board_id: b.id,
      column_id: columns[0].id,
      status: 'todo',
      priority: 'none',
      labels: ['Bug', 'ui'],
    });
    expect(o1).toMatchObject({ board_id: null, column_id: null, position: null, number: 1 });
    expect(await columnOrder(columns[0].id)).toEqual([
      ['TSK-3', 0],
      ['TSK-1', 1],
      ['TSK-2', 2],
    ]);

    const ordered = await get(`/v1/projects/tasks?column_id=${columns[0].id}`);
    expect(ordered.body.project_tasks.map((t: any) => t.key)).toEqual(['TSK-3', 'TSK-1', 'TSK-2']);
    expect(
      (await get(`/v1/projects/tasks?board_id=${b.id}&query=t`)).body.project_tasks.map((t: any) => t.key),
    ).toEqual(['TSK-3', 'TSK-2', 'TSK-1']);
    expect((await get(`/v1/projects/tasks?project_id=${p.id}&status=done`)).body.project_tasks).toEqual([]);
    expect((await get('/v1/projects/tasks?label=bug')).body.project_tasks.map((t: any) => t.key)).toEqual([
      'TSK-2',
    ]);
    expect((await get('/v1/projects/tasks?key=TSK-3')).body.project_tasks.map((t: any) => t.id)).toEqual([
      t3.id,
    ]);
    expect(
      (await get(`/v1/projects/tasks?project_id=${other.id}`)).body.project_tasks.map((t: any) => t.key),
    ).toEqual(['OTH-1']);

    // Moves: across columns, reporting the WIP limit, and into a status-mapped column.
    const m1 = await patch(`/v1/projects/tasks/${t1.id}`, { column_id: columns[1].id });
    expect(m1.body.project_task).toMatchObject({ column_id: columns[1].id, position: 0, status: 'todo' });
    const events = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', m1.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['project_task.moved']);
    expect(JSON.parse(events[0]!.payload).moved_from).toEqual({
      board_id: b.id,
      column_id: columns[0].id,
      position: 1,
    });
    await patch(`/v1/projects/tasks/${t3.id}`, { column_id: columns[1].id, position: 0 });
    const doing = (await get(`/v1/projects/board-columns/${columns[1].id}`)).body.project_board_column;
    expect(doing).toMatchObject({ task_count: 2, wip_limit: 1, over_wip_limit: true });
    expect(await columnOrder(columns[0].id)).toEqual([['TSK-2', 0]]);
    expect(await columnOrder(columns[1].id)).toEqual([
      ['TSK-3', 0],
      ['TSK-1', 1],
    ]);

    const done = await patch(`/v1/projects/tasks/${t3.id}`, { column_id: columns[2].id, title: 'Three!' });
    expect(done.body.project_task).toMatchObject({
      status: 'done',
      title: 'Three!',
      position: 0,
      completed_at: done.body.project_task.updated_at,
    });
    const doneEvents = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', done.body.request_id)
      .execute();
    expect(doneEvents.map((e) => e.name).sort()).toEqual(['project_task.moved', 'project_task.updated']);
    expect(await columnOrder(columns[1].id)).toEqual([['TSK-1', 0]]);

    // Reorder within a column, then take a task off the board.
    await patch(`/v1/projects/tasks/${t2.id}`, { column_id: columns[1].id, position: 0 });
    expect(await columnOrder(columns[1].id)).toEqual([
      ['TSK-2', 0],
      ['TSK-1', 1],
    ]);
    await patch(`/v1/projects/tasks/${t2.id}`, { position: 5 });
    expect(await columnOrder(columns[1].id)).toEqual([
      ['TSK-1', 0],
      ['TSK-2', 1],
    ]);
    const off = await patch(`/v1/projects/tasks/${t1.id}`, { board_id: null, column_id: null });
    expect(off.body.project_task).toMatchObject({ board_id: null, column_id: null, position: null });
    expect(await columnOrder(columns[1].id)).toEqual([['TSK-2', 0]]);
    const counts = await h.db
      .selectFrom('project_board_columns')
      .select(['name', 'task_count'])
      .where('board_id', '=', b.id)
      .orderBy('position')
      .execute();
    expect(counts.map((c) => Number(c.task_count))).toEqual([0, 1, 1]);
    expect(
      (await patch(`/v1/projects/tasks/${t1.id}`, { position: 0 })).body.error.field_errors[0].field,
    ).toBe('position');
  });

  it('rejects columns of another board or project, and archived projects', async () => {
    const p = await project('REJ');
    const q = await project('REQ');
    const a = await board(p.id, [{ name: 'A1' }]);
    const b = await board(p.id, [{ name: 'B1' }]);
    const foreign = await board(q.id, [{ name: 'Q1' }]);
    const empty = await board(p.id, []);
    const wrongBoard = await post('/v1/projects/tasks', {
      project_id: p.id,
      title: 'x',
      board_id: a.board.id,
      column_id: b.columns[0].id,
    });
    expect(wrongBoard.status).toBe(400);
    expect(wrongBoard.body.error.field_errors[0]).toMatchObject({ field: 'column_id' });
    expect(
      fieldsOf(
        await post('/v1/projects/tasks', { project_id: p.id, title: 'x', column_id: foreign.columns[0].id }),
      ),
    ).toEqual(['column_id']);
    expect(
      fieldsOf(
        await post('/v1/projects/tasks', { project_id: p.id, title: 'x', board_id: foreign.board.id }),
      ),
    ).toEqual(['board_id']);
    expect(
      fieldsOf(await post('/v1/projects/tasks', { project_id: p.id, title: 'x', board_id: empty.board.id })),
    ).toEqual(['board_id']);
    expect(fieldsOf(await post('/v1/projects/tasks', { project_id: p.id, title: 'x', position: 1 }))).toEqual(
      ['position'],
    );
    const task = (
      await post('/v1/projects/tasks', { project_id: p.id, title: 'ok', column_id: a.columns[0].id })
    ).body.project_task;
    expect(task.key).toBe('REJ-1');
    const move = await patch(`/v1/projects/tasks/${task.id}`, {
      board_id: a.board.id,
      column_id: b.columns[0].id,
    });
    expect(move.status).toBe(400);
    expect(await columnOrder(a.columns[0].id)).toEqual([['REJ-1', 0]]);
    // Moving to another board of the same project is fine; board_id alone picks its first column.
    const toB = await patch(`/v1/projects/tasks/${task.id}`, { board_id: b.board.id });
    expect(toB.body.project_task).toMatchObject({
      board_id: b.board.id,
      column_id: b.columns[0].id,
      position: 0,
    });
    const archived = await project('ARC', { status: 'archived' });
    expect(fieldsOf(await post('/v1/projects/tasks', { project_id: archived.id, title: 'x' }))).toEqual([
      'project_id',
    ]);
    // Failed creates used no numbers.
    expect(
      (await post('/v1/projects/tasks', { project_id: p.id, title: 'next' })).body.project_task.key,
    ).toBe('REJ-2');
    expect((await post('/v1/projects/tasks', { project_id: 'prj_nope', title: 'x' })).status).toBe(404);
  });

  it('updates fields with nulls, validates input strictly, and works over MCP', async () => {
    const p = await project('MCP');
    const created = await h.callTool(ws.mcpToken, 'create_project_task', {
      project_id: p.id,
      title: 'Via MCP',
      priority: 'high',
      estimate: 3,
      due_at: '2026-12-01T10:00:00+02:00',
      assignee_id: 'agent_1',
    });
    expect(created.result.isError).toBeUndefined();
    const task = created.body.project_task;
    expect(task).toMatchObject({
      key: 'MCP-1',
      priority: 'high',
      estimate: 3,
      assignee_id: 'agent_1',
      due_at: '2026-12-01T08:00:00.000Z',
    });
    const assigned = await h.callTool(ws.mcpToken, 'list_project_tasks', {
      assignee_id: 'agent_1',
      priority: 'high',
    });
    expect(assigned.body.project_tasks.map((t: any) => t.key)).toEqual(['MCP-1']);
    const updated = await h.callTool(ws.mcpToken, 'update_project_task', {
      project_task_id: task.id,
      estimate: null,
      assignee_id: null,
      status: 'done',
      labels: ['x'],
    });
    expect(updated.body.project_task).toMatchObject({
      estimate: null,
      assignee_id: null,
      status: 'done',
      labels: ['x'],
    });
    expect(updated.body.project_task.completed_at).not.toBeNull();
    const reopened = await patch(`/v1/projects/tasks/${task.id}`, { status: 'in_progress' });
    expect(reopened.body.project_task.completed_at).toBeNull();
    const unknown = await h.callTool(ws.mcpToken, 'create_project_task', {
      project_id: p.id,
      title: 'x',
      colour: 'red',
    });
    expect(unknown.body.error.code).toBe('validation_failed');
    const bad = await post('/v1/projects/tasks', {
      project_id: p.id,
      title: 'x',
      estimate: -1,
      labels: ['a', 'a'],
      priority: 'p1',
    });
    expect(fieldsOf(bad).sort()).toEqual(['estimate', 'labels', 'priority']);
    expect((await patch('/v1/projects/tasks/ptk_missing', { title: 'x' })).status).toBe(404);
    const list = await h.callTool(ws.mcpToken, 'list_project_tasks', {
      project_id: p.id,
      status: 'in_progress',
    });
    expect(list.body.project_tasks.map((t: any) => t.key)).toEqual(['MCP-1']);
  });
});
