import { Type } from '@sinclair/typebox';
import { inputFields, requireSomeField } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import type { DataAgentKnowledgeArtifactsTable } from './governed-tables.ts';
import {
  checkKnowledgeContent,
  findKnowledgeArtifact,
  insertKnowledgeArtifact,
  listKnowledgeArtifacts,
  toKnowledgeArtifact,
} from './knowledge-artifact-store.ts';
import { checkRefs, listedRefs, refListInput, refsJson } from './object-refs.ts';
import { KNOWLEDGE_KINDS, KNOWLEDGE_STATUSES, KnowledgeArtifactSchema } from './records-schemas.ts';
import { moveFrom, statusConflict } from './records-store.ts';

export const knowledgeArtifactRecord = defineRecordType({
  type: 'data_agent_knowledge_artifact',
  module: 'data_agents',
  table: 'data_agent_knowledge_artifacts',
  collection: '/v1/data-agents/knowledge-artifacts',
  key: 'knowledge_artifact',
  readScope: 'data_agents:read',
  schema: KnowledgeArtifactSchema,
  toResource: toKnowledgeArtifact,
});

const kindEnum = Type.Unsafe<(typeof KNOWLEDGE_KINDS)[number]>({
  type: 'string',
  enum: [...KNOWLEDGE_KINDS],
});

export const createKnowledgeArtifact = defineOperation({
  name: 'create_data_agent_knowledge_artifact',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_knowledge_artifact',
  summary: 'Write a knowledge artifact',
  description:
    'Stores a knowledge artifact: title, kind (document, glossary, faq, playbook, summary; glossary artifacts are the terms a natural-language pipeline indexes), Markdown content of at most 256 KiB (more is validation_failed on content), the records it was built from (source_refs, each must exist) and status draft (default) or published. Emits data_agent_knowledge_artifact.created.',
  input: Strict({
    title: Type.String({ minLength: 1, maxLength: 500 }),
    kind: kindEnum,
    content: Type.String({ minLength: 1, description: 'Markdown, at most 256 KiB of UTF-8.' }),
    source_refs: Type.Optional(refListInput('The records the content was built from ({type, id}).')),
    status: Type.Optional(
      Type.Unsafe<'draft' | 'published'>({ type: 'string', enum: ['draft', 'published'] }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/knowledge-artifacts' },
  responseKey: 'knowledge_artifact',
  handler: async (ctx, input) => {
    await checkRefs(ctx, listedRefs('source_refs', input.source_refs));
    const artifact = await insertKnowledgeArtifact(ctx.db, {
      workspaceId: ctx.workspaceId,
      title: input.title,
      kind: input.kind,
      content: input.content,
      sourceRefs: input.source_refs ?? [],
      status: input.status,
      now: ctx.now,
    });
    const target = { targetType: 'data_agent_knowledge_artifact', targetId: artifact.id };
    ctx.audit({ ...target, changedFields: inputFields(input) });
    ctx.emit({ name: 'data_agent_knowledge_artifact.created', ...target, data: artifact });
    return { body: { knowledge_artifact: artifact }, createdId: artifact.id };
  },
});

export const listKnowledgeArtifactsOperation = defineOperation({
  name: 'list_data_agent_knowledge_artifacts',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List knowledge artifacts',
  description:
    'Lists knowledge artifacts, newest first, by kind (document, glossary, faq, playbook, summary) and/or status, content included. Use it to read what the workspace already knows (glossary terms, playbooks) before writing a new artifact.',
  input: Strict({
    kind: Type.Optional(kindEnum),
    status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...KNOWLEDGE_STATUSES] })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/knowledge-artifacts' },
  heavy: heavyFilters({ indexed: ['kind', 'status'] }),
  responseKey: 'knowledge_artifacts',
  handler: async (ctx, input) => {
    const page = await listKnowledgeArtifacts(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_knowledge_artifacts', input),
    );
    return { body: listBody('knowledge_artifacts', page) };
  },
});

const NEXT: Record<string, readonly string[]> = { published: ['draft'], archived: ['draft', 'published'] };

export const updateKnowledgeArtifact = defineOperation({
  name: 'update_data_agent_knowledge_artifact',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  extension: true,
  summary: 'Edit, publish or archive a knowledge artifact',
  description:
    'Edits a draft knowledge artifact (title, content up to 256 KiB, source_refs: replaced) and/or moves it: status published (from draft) or archived (from draft or published). Editing a published or archived artifact, or any other move, is 409 conflict naming its status: write a new artifact instead. Emits data_agent_knowledge_artifact.updated, or .status_changed when it moved.',
  input: Strict({
    knowledge_artifact_id: Type.String({ minLength: 1, maxLength: 255 }),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    content: Type.Optional(Type.String({ minLength: 1, description: 'Markdown, at most 256 KiB of UTF-8.' })),
    source_refs: Type.Optional(refListInput('The records the content was built from ({type, id}).')),
    status: Type.Optional(
      Type.Unsafe<'published' | 'archived'>({ type: 'string', enum: ['published', 'archived'] }),
    ),
  }),
  rest: { method: 'PATCH', path: '/v1/data-agents/knowledge-artifacts/{knowledge_artifact_id}' },
  responseKey: 'knowledge_artifact',
  handler: async (ctx, input) => {
    const edits = ['title', 'content', 'source_refs'] as const;
    requireSomeField(input, [...edits, 'status']);
    const row = await findKnowledgeArtifact(ctx.db, ctx.workspaceId, input.knowledge_artifact_id);
    if (!row) throw notFound('knowledge artifact');
    const editing = edits.some((field) => input[field] !== undefined);
    const from = editing ? ['draft'] : NEXT[input.status!]!;
    if (!from.includes(row.status)) {
      const needs = editing
        ? 'only a draft artifact can be edited'
        : `only a ${from.join(' or ')} artifact can become ${input.status}`;
      throw statusConflict('knowledge artifact', row.status, needs);
    }
    if (input.content !== undefined) checkKnowledgeContent(input.content);
    await checkRefs(ctx, listedRefs('source_refs', input.source_refs));
    const changes: Partial<DataAgentKnowledgeArtifactsTable> = { updated_at: ctx.now };
    if (input.title !== undefined) changes.title = input.title;
    if (input.content !== undefined) changes.content = input.content;
    if (input.source_refs !== undefined) changes.source_refs = refsJson(input.source_refs);
    if (input.status !== undefined) changes.status = input.status;
    const table = 'data_agent_knowledge_artifacts';
    if (!(await moveFrom(ctx.db, table, ctx.workspaceId, row.id, [row.status], changes))) {
      const current = await findKnowledgeArtifact(ctx.db, ctx.workspaceId, row.id);
      throw statusConflict('knowledge artifact', current?.status ?? 'gone', 'it changed meanwhile');
    }
    const artifact = toKnowledgeArtifact({ ...row, ...changes });
    const target = { targetType: 'data_agent_knowledge_artifact', targetId: row.id };
    const changed = [...edits, 'status'].filter((f) => (input as Record<string, unknown>)[f] !== undefined);
    ctx.audit({ ...target, changedFields: changed });
    const name = input.status ? 'status_changed' : 'updated';
    ctx.emit({ name: `data_agent_knowledge_artifact.${name}`, ...target, data: artifact });
    return { body: { knowledge_artifact: artifact } };
  },
});
