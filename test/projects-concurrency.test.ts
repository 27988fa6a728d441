// Concurrent writes: task keys are handed out without gaps or repeats, and racing moves keep every
// column a gap-free order with each task exactly once (PostgreSQL runs these truly in parallel).
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

async function setup(key: string, columnCount: number) {
  const project = (await post('/v1/projects', { name: key, key })).body.project;
  const board = (await post('/v1/projects/boards', { project_id: project.id, name: 'Board' })).body
    .project_board;
  const columns = [];
  for (let i = 0; i < columnCount; i++) {
    columns.push(
      (await post('/v1/projects/board-columns', { board_id: board.id, name: `C${i}` })).body
        .project_board_column,
    );
  }
  return { project, board, columns };
}

async function boardState(boardId: string) {
  const tasks = await h.db
    .selectFrom('project_tasks')
    .select(['id', 'column_id', 'position'])
    .where('workspace_id', '=', ws.id)
    .where('board_id', '=', boardId)
    .execute();
  const columns = await h.db
    .selectFrom('project_board_columns')
    .select(['id', 'task_count'])
    .where('board_id', '=', boardId)
    .execute();
  return { tasks, columns };
}

function expectGapFree(state: Awaited<ReturnType<typeof boardState>>, taskIds: string[]) {
  expect(state.tasks.map((t) => t.id).sort()).toEqual([...taskIds].sort());
  for (const column of state.columns) {
    const positions = state.tasks
      .filter((t) => t.column_id === column.id)
      .map((t) => Number(t.position))
      .sort((a, b) => a - b);
    expect(positions).toEqual(positions.map((_, i) => i));
    expect(Number(column.task_count)).toBe(positions.length);
  }
}

describe('concurrent task creates', () => {
  it('never repeat or skip a key number, with replays consuming none', async () => {
    const { project, columns } = await setup('RACE', 1);
    const inputs = Array.from({ length: 20 }, (_, i) => ({
      project_id: project.id,
      title: `Task ${i}`,
      ...(i % 2 ? { column_id: columns[0].id, position: 0 } : {}),
      idempotency_key: `race-${i}`,
    }));
    // Four retries of the same inputs race with the originals: they replay and take no number.
    const creates = [...inputs, ...inputs.slice(0, 4)].map((input) => post('/v1/projects/tasks', input));
    const results = await Promise.all(creates);
    for (const res of results) expect([200, 201]).toContain(res.status);
    const numbers = (
      await h.db.selectFrom('project_tasks').select('number').where('project_id', '=', project.id).execute()
    ).map((r) => Number(r.number));
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const stored = await h.db
      .selectFrom('projects')
      .select('next_task_number')
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.next_task_number)).toBe(20);
    const next = await post('/v1/projects/tasks', { project_id: project.id, title: 'After the race' });
    expect(next.body.project_task.key).toBe('RACE-21');
  });
});

describe('racing moves', () => {
  it('keep positions gap-free with no lost or duplicated task', async () => {
    const { project, board, columns } = await setup('MOVE', 3);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await post('/v1/projects/tasks', {
        project_id: project.id,
        title: `T${i}`,
        column_id: columns[i % 3].id,
      });
      ids.push(res.body.project_task.id);
    }
    for (let round = 0; round < 3; round++) {
      const moves = ids.map((id, i) =>
        patch(`/v1/projects/tasks/${id}`, {
          column_id: columns[(i + round + 1) % 3].id,
          position: (i * 7 + round) % 5,
        }),
      );
      // The same task moved twice at once: both moves apply, one after the other.
      moves.push(patch(`/v1/projects/tasks/${ids[0]}`, { column_id: columns[round % 3].id, position: 0 }));
      moves.push(patch(`/v1/projects/tasks/${ids[1]}`, { position: 0 }));
      const results = await Promise.all(moves);
      for (const res of results) expect(res.status, res.text).toBe(200);
      expectGapFree(await boardState(board.id), ids);
    }
  });

  it('keep column order gap-free when columns are reordered concurrently', async () => {
    const { board, columns } = await setup('COLS', 6);
    const results = await Promise.all(
      columns.map((column, i) => patch(`/v1/projects/board-columns/${column.id}`, { position: (i * 4) % 6 })),
    );
    for (const res of results) expect(res.status).toBe(200);
    const positions = (
      await h.db
        .selectFrom('project_board_columns')
        .select('position')
        .where('board_id', '=', board.id)
        .execute()
    ).map((r) => Number(r.position));
    expect(positions.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
