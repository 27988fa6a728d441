import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum, Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { moveColumn, openColumnSlot } from './placement.ts';
import { ProjectBoardColumnSchema } from './project-schemas.ts';
import {
  findBoard,
  findColumn,
  insertColumn,
  listColumns,
  toColumn,
  updateColumnRow,
} from './project-store.ts';
import type { ProjectBoardColumnsTable } from './project-tables.ts';
import { TASK_STATUSES } from './task-schema.ts';

export const columnRecord = defineRecordType({
  type: 'project_board_column',
  module: 'projects',
  table: 'project_board_columns',
  collection: '/v1/projects/board-columns',
  key: 'project_board_column',
  readScope: 'projects:read',
  schema: ProjectBoardColumnSchema,
  toResource: toColumn,
});

const name = Type.String({ minLength: 1, maxLength: 100 });
const position = Type.Integer({
  minimum: 0,
  description: '0-based; default last.',
});
const wipLimit = Type.Integer({
  minimum: 1,
  maximum: 10_000,
  description: 'Reported as over_wip_limit when exceeded, never enforced.',
});
const columnTaskStatus = Enum(TASK_STATUSES, {
  description: 'Status a task takes when moved in, e.g. done.',
});

export const createColumn = defineOperation({
  name: 'create_project_board_column',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'create',
  creates: 'project_board_column',
  summary: 'Create a board column',
  description:
    'Adds a column to a board at position (later columns shift right), optionally with a wip_limit and a task_status. Emits project_board_column.created.',
  input: Strict({
    board_id: Type.String({ minLength: 1 }),
    name,
    position: Type.Optional(position),
    wip_limit: Type.Optional(wipLimit),
    task_status: Type.Optional(columnTaskStatus),
  }),
  rest: { method: 'POST', path: '/v1/projects/board-columns' },
  responseKey: 'project_board_column',
  handler: async (ctx, input) => {
    const board = await findBoard(ctx.db, ctx.workspaceId, input.board_id);
    if (!board) throw notFound('project board');
    const slot = await openColumnSlot(ctx, board.project_id, board.id, input.position);
    const row: ProjectBoardColumnsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('pbc'),
      project_id: board.project_id,
      board_id: board.id,
      name: input.name,
      position: slot,
      wip_limit: input.wip_limit ?? null,
      task_status: (input.task_status ?? null) as ProjectBoardColumnsTable['task_status'],
      task_count: 0,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertColumn(ctx.db, row);
    const column = toColumn(row);
    ctx.audit({ targetType: 'project_board_column', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'project_board_column.created',
      targetType: 'project_board_column',
      targetId: row.id,
      data: column,
    });
    return { body: { project_board_column: column }, createdId: row.id };
  },
});

export const listColumnsOperation = defineOperation({
  name: 'list_project_board_columns',
  module: 'projects',
  scopes: ['projects:read'],
  kind: 'read',
  summary: 'List board columns',
  description:
    'Lists board columns in board order (oldest board first, then position), each with task_count, wip_limit and over_wip_limit.',
  input: Strict({
    board_id: Type.Optional(Type.String({ minLength: 1 })),
    project_id: Type.Optional(Type.String({ minLength: 1 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/projects/board-columns' },
  responseKey: 'project_board_columns',
  handler: async (ctx, input) => {
    const page = await listColumns(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_project_board_columns', input),
    );
    return { body: listBody('project_board_columns', page) };
  },
});

const UPDATABLE = ['name', 'wip_limit', 'task_status'] as const;

export const updateColumn = defineOperation({
  name: 'update_project_board_column',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'update',
  summary: 'Update a board column',
  description:
    'Renames a column, changes its wip_limit or task_status, or moves it within its board (the others shift; positions stay 0..n-1). Emits project_board_column.updated when something changed.',
  input: Strict({
    column_id: Type.String({ minLength: 1 }),
    name: Type.Optional(name),
    position: Type.Optional(position),
    wip_limit: Type.Optional(Nullable(wipLimit)),
    task_status: Type.Optional(Nullable(columnTaskStatus)),
  }),
  rest: { method: 'PATCH', path: '/v1/projects/board-columns/{column_id}' },
  responseKey: 'project_board_column',
  handler: async (ctx, input) => {
    requireSomeField(input, [...UPDATABLE, 'position']);
    const found = await findColumn(ctx.db, ctx.workspaceId, input.column_id);
    if (!found) throw notFound('project board column');
    const { changes, changed } = diffFields(found, input, UPDATABLE);
    if (input.position !== undefined) {
      const { current, target } = await moveColumn(ctx, found, input.position);
      if (target !== current) {
        changes.position = target;
        changed.push('position');
      }
    }
    if (changed.length) {
      await updateColumnRow(ctx.db, ctx.workspaceId, found.id, { ...changes, updated_at: ctx.now });
    }
    // Read back: task_count may have changed since the first read.
    const column = toColumn((await findColumn(ctx.db, ctx.workspaceId, found.id))!);
    ctx.audit({ targetType: 'project_board_column', targetId: found.id, changedFields: changed });
    if (changed.length) {
      ctx.emit({
        name: 'project_board_column.updated',
        targetType: 'project_board_column',
        targetId: found.id,
        data: column,
      });
    }
    return { body: { project_board_column: column } };
  },
});
