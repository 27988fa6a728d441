// Idempotent creates (replay and conflict) and tenant isolation (404 on every ID) for the projects module.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let owner: TestWorkspace;
let stranger: TestWorkspace;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await Harness.start();
  owner = await h.workspace('Owner');
  stranger = await h.workspace('Stranger');
  const post = async (url: string, body: unknown) =>
    (await h.request('POST', url, { token: owner.apiKey, body })).body;
  ids.project = (await post('/v1/projects', { name: 'Owner project', key: 'OWN' })).project.id;
  ids.board = (
    await post('/v1/projects/boards', { project_id: ids.project, name: 'Owner board' })
  ).project_board.id;
  ids.column = (
    await post('/v1/projects/board-columns', { board_id: ids.board, name: 'Todo' })
  ).project_board_column.id;
  ids.task = (
    await post('/v1/projects/tasks', { project_id: ids.project, title: 'Owner task', column_id: ids.column })
  ).project_task.id;
});
afterAll(() => h.close());

describe('idempotent creates', () => {
  it('replay the first record and answer 409 for another input, on every create', async () => {
    const creates: [string, string, string, Record<string, unknown>][] = [
      ['/v1/projects', 'project', 'projects', { name: 'Idem', key: 'IDEM' }],
      [
        '/v1/projects/boards',
        'project_board',
        'project_boards',
        { project_id: ids.project, name: 'Idem board' },
      ],
      [
        '/v1/projects/board-columns',
        'project_board_column',
        'project_board_columns',
        { board_id: ids.board, name: 'Idem col' },
      ],
      [
        '/v1/projects/tasks',
        'project_task',
        'project_tasks',
        { project_id: ids.project, title: 'Idem task', column_id: ids.column },
      ],
    ];
    for (const [url, key, table, body] of creates) {
      const count = async () =>
        Number(
          (
            await h.db
              .selectFrom(table as 'projects')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('workspace_id', '=', owner.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const first = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, idempotency_key: `idem-${key}` },
      });
      expect(first.status, `${url} ${first.text}`).toBe(201);
      const before = await count();
      const replay = await h.callTool(owner.mcpToken, `create_${key}`, {
        ...body,
        idempotency_key: `idem-${key}`,
      });
      expect(replay.result.isError, url).toBeUndefined();
      expect(replay.body[key], url).toEqual(first.body[key]);
      const again = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, idempotency_key: `idem-${key}` },
      });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const conflict = await h.request('POST', url, {
        token: owner.apiKey,
        body: {
          ...body,
          ...('title' in body ? { title: 'Changed' } : { name: 'Changed' }),
          idempotency_key: `idem-${key}`,
        },
      });
      expect(conflict.status, url).toBe(409);
      expect(conflict.body.error).toMatchObject({
        code: 'idempotency_conflict',
        idempotency_key: `idem-${key}`,
      });
      expect(await count(), url).toBe(before);
    }
    // The replayed task took no number: the next create gets the next key.
    const next = await h.request('POST', '/v1/projects/tasks', {
      token: owner.apiKey,
      body: { project_id: ids.project, title: 'Next' },
    });
    expect(next.body.project_task.key).toBe('OWN-3');
  });
});

describe('a second workspace', () => {
  it('gets 404 reading every record of the first', async () => {
    const paths = [
      `/v1/projects/${ids.project}`,
      `/v1/projects/boards/${ids.board}`,
      `/v1/projects/board-columns/${ids.column}`,
      `/v1/projects/tasks/${ids.task}`,
    ];
    for (const path of paths) {
      expect((await h.request('GET', path, { token: owner.apiKey })).status, path).toBe(200);
      const foreign = await h.request('GET', path, { token: stranger.apiKey });
      expect(foreign.status, path).toBe(404);
      expect(foreign.body.error.code).toBe('resource_not_found');
      expect(foreign.text).not.toContain(owner.id);
    }
  });

  it('gets 404 updating or referencing them, and changes nothing', async () => {
    const writes: [string, string, Record<string, unknown>][] = [
      ['PATCH', `/v1/projects/${ids.project}`, { name: 'Hijack' }],
      ['PATCH', `/v1/projects/boards/${ids.board}`, { name: 'Hijack' }],
      ['PATCH', `/v1/projects/board-columns/${ids.column}`, { name: 'Hijack', position: 0 }],
      ['PATCH', `/v1/projects/tasks/${ids.task}`, { title: 'Hijack' }],
      ['PATCH', `/v1/projects/tasks/${ids.task}`, { position: 0 }],
      ['POST', '/v1/projects/boards', { project_id: ids.project, name: 'x' }],
      ['POST', '/v1/projects/board-columns', { board_id: ids.board, name: 'x' }],
      ['POST', '/v1/projects/tasks', { project_id: ids.project, title: 'x' }],
    ];
    for (const [method, url, body] of writes) {
      const res = await h.request(method, url, { token: stranger.apiKey, body });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    // The stranger's own project cannot use the owner's board or column either.
    const own = (
      await h.request('POST', '/v1/projects', { token: stranger.apiKey, body: { name: 'Mine', key: 'OWN' } })
    ).body.project;
    for (const placement of [{ board_id: ids.board }, { column_id: ids.column }]) {
      const res = await h.request('POST', '/v1/projects/tasks', {
        token: stranger.apiKey,
        body: { project_id: own.id, title: 'x', ...placement },
      });
      expect(res.status).toBe(404);
    }
    const mine = (
      await h.request('POST', '/v1/projects/tasks', {
        token: stranger.apiKey,
        body: { project_id: own.id, title: 'mine' },
      })
    ).body.project_task;
    expect(
      (
        await h.request('PATCH', `/v1/projects/tasks/${mine.id}`, {
          token: stranger.apiKey,
          body: { column_id: ids.column },
        })
      ).status,
    ).toBe(404);
    const mcp = await h.callTool(stranger.mcpToken, 'update_project_task', {
      project_task_id: ids.task,
      title: 'x',
    });
    expect(mcp.body.error.code).toBe('resource_not_found');
    const task = await h.db
      .selectFrom('project_tasks')
      .selectAll()
      .where('id', '=', ids.task)
      .executeTakeFirstOrThrow();
    expect(task).toMatchObject({ title: 'Owner task', position: 0 });
    const project = await h.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', ids.project)
      .executeTakeFirstOrThrow();
    expect(project.name).toBe('Owner project');
  });

  it('sees none of them in lists or in its summary', async () => {
    for (const url of [
      '/v1/projects',
      '/v1/projects/boards',
      '/v1/projects/board-columns',
      '/v1/projects/tasks',
    ]) {
      const res = await h.request('GET', url, { token: stranger.apiKey });
      const key = Object.keys(res.body).find((k) => k !== 'request_id')!;
      expect(
        res.body[key].filter((r: any) => Object.values(ids).includes(r.id)),
        url,
      ).toEqual([]);
    }
    const filtered = await h.request('GET', `/v1/projects/tasks?project_id=${ids.project}`, {
      token: stranger.apiKey,
    });
    expect(filtered.body.project_tasks).toEqual([]);
    const summary = await h.request('GET', '/v1/workspace', { token: stranger.apiKey });
    expect(summary.body.workspace.summary.projects).toMatchObject({ active_projects: 1, open_tasks: 1 });
  });
});
