import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import {
  insertKnowledgeArtifact,
  listKnowledgeArtifacts,
  toKnowledgeArtifact,
} from './knowledge-artifact-store.ts';
import { checkRefs, listedRefs, refListInput } from './object-refs.ts';
import { KNOWLEDGE_KINDS, KNOWLEDGE_STATUSES, KnowledgeArtifactSchema } from './records-schemas.ts';

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
