import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { ProjectBoardSchema } from './project-schemas.ts';
import { findBoard, insertBoard, listBoards, toBoard, updateBoardRow } from './project-store.ts';
import type { ProjectBoardsTable } from './project-tables.ts';

export const boardRecord = defineRecordType({
  type: 'project_board',
  module: 'projects',
  table: 'project_boards',
  collection: '/v1/projects/boards',
  key: 'project_board',
  readScope: 'projects:read',
  schema: ProjectBoardSchema,
  toResource: toBoard,
});

const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.String({ maxLength: 20_000 });

export const createBoard = defineOperation({
  name: 'create_project_board',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'create',
  creates: 'project_board',
  summary: 'Create a project board',
  description:
    'Creates a board (a kanban view) in a project, without columns: add them in order with create_project_board_column, then place tasks on it. Emits project_board.created.',
  input: Strict({
    project_id: Type.String({ minLength: 1 }),
    name,
    description: Type.Optional(description),
  }),
  rest: { method: 'POST', path: '/v1/projects/boards' },
  responseKey: 'project_board',
  handler: async (ctx, input) => {
    await ctx.requireRecord('project', input.project_id);
    const row: ProjectBoardsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('pbd'),
      project_id: input.project_id,
      name: input.name,
      description: input.description ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertBoard(ctx.db, row);
    const board = toBoard(row);
    ctx.audit({ targetType: 'project_board', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'project_board.created', targetType: 'project_board', targetId: row.id, data: board });
    return { body: { project_board: board }, createdId: row.id };
  },
});

export const listBoardsOperation = defineOperation({
  name: 'list_project_boards',
  module: 'projects',
  scopes: ['projects:read'],
  kind: 'read',
  summary: 'List project boards',
  description:
    "Lists boards, newest first; query matches name and description. A board's columns: list_project_board_columns; its tasks: list_project_tasks with board_id.",
  input: Strict({
    project_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/projects/boards' },
  responseKey: 'project_boards',
  handler: async (ctx, input) => {
    const page = await listBoards(ctx.db, ctx.workspaceId, input, pageRequest('list_project_boards', input));
    return { body: listBody('project_boards', page) };
  },
});

const UPDATABLE = ['name', 'description'] as const;

export const updateBoard = defineOperation({
  name: 'update_project_board',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'update',
  summary: 'Update a project board',
  description:
    'Renames a board or changes its description; it stays in its project. Emits project_board.updated when something changed.',
  input: Strict({
    board_id: Type.String({ minLength: 1 }),
    name: Type.Optional(name),
    description: Type.Optional(Nullable(description)),
  }),
  rest: { method: 'PATCH', path: '/v1/projects/boards/{board_id}' },
  responseKey: 'project_board',
  handler: async (ctx, input) => {
    requireSomeField(input, ['name', 'description']);
    const row = await findBoard(ctx.db, ctx.workspaceId, input.board_id);
    if (!row) throw notFound('project board');
    const { changes, changed } = diffFields(row, input, UPDATABLE);
    const next = changed.length ? { ...row, ...changes, updated_at: ctx.now } : row;
    if (changed.length) {
      await updateBoardRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    const board = toBoard(next);
    ctx.audit({ targetType: 'project_board', targetId: row.id, changedFields: changed });
    if (changed.length) {
      ctx.emit({ name: 'project_board.updated', targetType: 'project_board', targetId: row.id, data: board });
    }
    return { body: { project_board: board } };
  },
});
