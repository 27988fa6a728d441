import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum, Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { ProjectSchema } from './project-schemas.ts';
import { findProject, insertProject, listProjects, toProject, updateProjectRow } from './project-store.ts';
import type { ProjectsTable } from './project-tables.ts';

export const projectRecord = defineRecordType({
  type: 'project',
  module: 'projects',
  table: 'projects',
  collection: '/v1/projects',
  key: 'project',
  readScope: 'projects:read',
  schema: ProjectSchema,
  toResource: toProject,
});

export const projectStatus = (description?: string) =>
  Enum(
    ['planned', 'active', 'on_hold', 'completed', 'archived'] as const,
    description ? { description } : {},
  );
const date = (description?: string) =>
  Type.String({ format: 'date', ...(description ? { description } : {}) });
const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.String({ maxLength: 20_000 });
const ownerId = Type.String({
  minLength: 1,
  maxLength: 255,
});

function checkDates(startDate: string | null, targetDate: string | null) {
  if (startDate && targetDate && targetDate < startDate) {
    throw validationFailed([{ field: 'target_date', message: 'must not be before start_date' }]);
  }
}

export const createProject = defineOperation({
  name: 'create_project',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'create',
  creates: 'project',
  summary: 'Create a project',
  description:
    "Creates a project whose key (e.g. WEB; unique; cannot change) prefixes its tasks' human keys (WEB-1, WEB-2 ...). Add boards with create_project_board, tasks with create_project_task. Emits project.created.",
  input: Strict({
    name,
    key: Type.String({
      pattern: '^[A-Z][A-Z0-9]{1,9}$',
      examples: ['WEB'],
    }),
    description: Type.Optional(description),
    status: Type.Optional(projectStatus('Default active.')),
    owner_id: Type.Optional(ownerId),
    start_date: Type.Optional(date()),
    target_date: Type.Optional(date('Not before start_date.')),
  }),
  rest: { method: 'POST', path: '/v1/projects' },
  responseKey: 'project',
  handler: async (ctx, input) => {
    checkDates(input.start_date ?? null, input.target_date ?? null);
    const row: ProjectsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('prj'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      status: (input.status ?? 'active') as ProjectsTable['status'],
      owner_id: input.owner_id ?? null,
      start_date: input.start_date ?? null,
      target_date: input.target_date ?? null,
      next_task_number: 0,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(
      () => insertProject(ctx.db, row),
      'key',
      `is already used by another project (${input.key})`,
    );
    const project = toProject(row);
    ctx.audit({ targetType: 'project', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'project.created', targetType: 'project', targetId: row.id, data: project });
    return { body: { project }, createdId: row.id };
  },
});

export const listProjectsOperation = defineOperation({
  name: 'list_projects',
  module: 'projects',
  scopes: ['projects:read'],
  kind: 'read',
  summary: 'List projects',
  description:
    'Lists projects, newest first, archived ones included unless status filters them; query matches name, key and description.',
  input: Strict({
    status: Type.Optional(projectStatus()),
    owner_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/projects' },
  responseKey: 'projects',
  heavy: heavyFilters({ indexed: ['status', 'owner_id'] }),
  handler: async (ctx, input) => {
    const page = await listProjects(
      ctx.db,
      ctx.workspaceId,
      input as Parameters<typeof listProjects>[2],
      pageRequest('list_projects', input),
    );
    return { body: listBody('projects', page) };
  },
});

const UPDATABLE = ['name', 'description', 'status', 'owner_id', 'start_date', 'target_date'] as const;

export const updateProject = defineOperation({
  name: 'update_project',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'update',
  summary: 'Update a project',
  description:
    "Changes a project's name, description, status, owner_id or dates; the key cannot change. Emits project.status_changed on a status change, otherwise project.updated.",
  input: Strict({
    project_id: Type.String({ minLength: 1 }),
    name: Type.Optional(name),
    description: Type.Optional(Nullable(description)),
    status: Type.Optional(projectStatus()),
    owner_id: Type.Optional(Nullable(ownerId)),
    start_date: Type.Optional(Nullable(date())),
    target_date: Type.Optional(Nullable(date('Not before start_date.'))),
  }),
  rest: { method: 'PATCH', path: '/v1/projects/{project_id}' },
  responseKey: 'project',
  handler: async (ctx, input) => ({ body: { project: await changeProject(ctx, input) } }),
});

async function changeProject(ctx: OperationContext, input: Record<string, unknown> & { project_id: string }) {
  requireSomeField(input, UPDATABLE);
  const row = await findProject(ctx.db, ctx.workspaceId, input.project_id);
  if (!row) throw notFound('project');
  const { changes, changed } = diffFields(row, input, UPDATABLE);
  const next = { ...row, ...changes, updated_at: ctx.now };
  checkDates(next.start_date, next.target_date);
  if (changed.length) {
    await updateProjectRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
  }
  const project = toProject(changed.length ? next : row);
  ctx.audit({ targetType: 'project', targetId: row.id, changedFields: changed });
  if (changed.length) {
    const event = changed.includes('status') ? 'project.status_changed' : 'project.updated';
    ctx.emit({ name: event, targetType: 'project', targetId: row.id, data: project });
  }
  return project;
}
