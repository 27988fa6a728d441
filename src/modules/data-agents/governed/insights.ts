import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { findInsight, insertDraftInsight, listInsights, toInsight } from './insight-store.ts';
import { checkRefs, refInput } from './object-refs.ts';
import { INSIGHT_STATUSES, InsightSchema } from './records-schemas.ts';
import { moveFrom, statusConflict } from './records-store.ts';

export const insightRecord = defineRecordType({
  type: 'data_agent_insight',
  module: 'data_agents',
  table: 'data_agent_insights',
  collection: '/v1/data-agents/insights',
  key: 'insight',
  readScope: 'data_agents:read',
  schema: InsightSchema,
  toResource: toInsight,
});

export const createInsight = defineOperation({
  name: 'create_data_agent_insight',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_insight',
  summary: 'Draft an insight',
  description:
    'Drafts an insight (status draft): a title, a narrative summary and the figures it states, each with its value, unit and source ({type, id}: the BI query or dataset version that produced it, which must exist). Publish it with publish_data_agent_insight. Emits data_agent_insight.created.',
  input: Strict({
    title: Type.String({ minLength: 1, maxLength: 500 }),
    summary: Type.String({ minLength: 1, maxLength: 50_000, description: 'The narrative, Markdown.' }),
    figures: Type.Optional(
      Type.Array(
        Strict({
          label: Type.String({ minLength: 1, maxLength: 500 }),
          value: Type.Number(),
          unit: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
          source: refInput('The query or dataset version that produced the value.'),
        }),
        { maxItems: 100 },
      ),
    ),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/insights' },
  responseKey: 'insight',
  handler: async (ctx, input) => {
    const figures = (input.figures ?? []).map((f) => ({
      label: f.label,
      value: f.value,
      unit: f.unit ?? null,
      source: { type: f.source.type, id: f.source.id },
    }));
    await checkRefs(
      ctx,
      figures.map((f, i) => ({ field: `figures[${i}].source`, ref: f.source })),
    );
    const insight = await insertDraftInsight(ctx.db, {
      workspaceId: ctx.workspaceId,
      title: input.title,
      summary: input.summary,
      figures,
      now: ctx.now,
    });
    const target = { targetType: 'data_agent_insight', targetId: insight.id };
    ctx.audit({ ...target, changedFields: inputFields(input) });
    ctx.emit({ name: 'data_agent_insight.created', ...target, data: insight });
    return { body: { insight }, createdId: insight.id };
  },
});

export const listInsightsOperation = defineOperation({
  name: 'list_data_agent_insights',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List insights',
  description:
    'Lists insights, newest first, optionally by status (draft, published, archived), each with its figures and their sources. Use it to find what the data agents concluded before drafting a new insight.',
  input: Strict({
    status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...INSIGHT_STATUSES] })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/insights' },
  heavy: heavyFilters({ indexed: ['status'] }),
  responseKey: 'insights',
  handler: async (ctx, input) => {
    const page = await listInsights(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_insights', input),
    );
    return { body: listBody('insights', page) };
  },
});

export const publishInsight = defineOperation({
  name: 'publish_data_agent_insight',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'action',
  summary: 'Publish a draft insight',
  description:
    'Publishes a draft insight (status published, published_at set) and emits data_agent.insight_published, which webhooks and notification rules can subscribe to (and data_agent_insight.status_changed). Only a draft can be published: any other status is 409 conflict naming it. MCP-only workflow step.',
  input: Strict({ insight_id: Type.String({ minLength: 1, maxLength: 255 }) }),
  rest: null,
  responseKey: 'insight',
  handler: async (ctx, input) => {
    const row = await findInsight(ctx.db, ctx.workspaceId, input.insight_id);
    if (!row) throw notFound('insight');
    const needs = 'only a draft insight can be published';
    if (row.status !== 'draft') throw statusConflict('insight', row.status, needs);
    const changes = { status: 'published', published_at: ctx.now, updated_at: ctx.now };
    if (!(await moveFrom(ctx.db, 'data_agent_insights', ctx.workspaceId, row.id, ['draft'], changes))) {
      throw statusConflict(
        'insight',
        (await findInsight(ctx.db, ctx.workspaceId, row.id))?.status ?? 'gone',
        needs,
      );
    }
    const insight = toInsight({ ...row, ...changes });
    const target = { targetType: 'data_agent_insight', targetId: row.id };
    ctx.audit({ ...target, action: 'publish', changedFields: ['status', 'published_at'] });
    ctx.emit({ name: 'data_agent.insight_published', ...target, data: insight });
    ctx.emit({ name: 'data_agent_insight.status_changed', ...target, data: insight });
    return { body: { insight } };
  },
});

export const archiveInsight = defineOperation({
  name: 'archive_data_agent_insight',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'archive',
  extension: true,
  summary: 'Archive an insight',
  description:
    'Archives a draft or published insight (status archived, archived_at set): it stays readable and listed under status archived, with its figures, as the record of what was once concluded. Archiving again returns it unchanged. Emits data_agent_insight.status_changed.',
  input: Strict({ insight_id: Type.String({ minLength: 1, maxLength: 255 }) }),
  rest: { method: 'DELETE', path: '/v1/data-agents/insights/{insight_id}' },
  responseKey: 'insight',
  handler: async (ctx, input) => {
    const row = await findInsight(ctx.db, ctx.workspaceId, input.insight_id);
    if (!row) throw notFound('insight');
    const target = { targetType: 'data_agent_insight', targetId: row.id };
    if (row.status === 'archived') {
      ctx.audit({ ...target, changedFields: [] });
      return { body: { insight: toInsight(row) } };
    }
    const changes = { status: 'archived', archived_at: ctx.now, updated_at: ctx.now };
    if (
      !(await moveFrom(
        ctx.db,
        'data_agent_insights',
        ctx.workspaceId,
        row.id,
        ['draft', 'published'],
        changes,
      ))
    ) {
      // Archived by a concurrent call in the meantime: the same answer as archiving again.
      ctx.audit({ ...target, changedFields: [] });
      return { body: { insight: toInsight((await findInsight(ctx.db, ctx.workspaceId, row.id))!) } };
    }
    const insight = toInsight({ ...row, ...changes });
    ctx.audit({ ...target, changedFields: ['status', 'archived_at'] });
    ctx.emit({ name: 'data_agent_insight.status_changed', ...target, data: insight });
    return { body: { insight } };
  },
});
