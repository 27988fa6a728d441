// create_service_guide_session: a question about using this service, answered from its own documentation
// (guide-index.ts). The passages are retrieved, and with the operator's model a short answer citing them is
// generated, before the call's transaction (heavyRead: nothing is locked while the model thinks); the
// session and its two turns (the question, the answer or the passages) are then stored as an Agent Grid
// session with session items.
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { newId } from '../../../core/ids.ts';
import { Enum, Nullable, Shape, Text } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { SessionItemSchema, SessionSchema } from './agent-grid-schemas.ts';
import type { AgentSessionItemsTable, AgentSessionsTable } from './agent-grid-tables.ts';
import { guideIndex } from './guide-index.ts';
import { chat, ModelError, modelConfigured } from './llm-client.ts';
import {
  insertSession,
  insertSessionItem,
  sessionItemsBySequence,
  toSession,
  toSessionItem,
} from './session-store.ts';

const PassageSchema = Shape({
  source: Text(
    'docs/modules/vectors.md',
    'A repository file, src/core/errors.ts (an error code) or registry (a tool).',
  ),
  anchor: Text(
    '#archived-collections',
    'The heading anchor in that file; an error code or tool name otherwise.',
  ),
  heading: Text('Archived collections'),
  excerpt: Text('archive_vector_collection keeps the documents; searches answer 409 ...'),
  score: Type.Number({ examples: [0.58] }),
  vector_score: Type.Number({ examples: [0.31] }),
  keyword_score: Type.Number({ examples: [0.85] }),
  matched_terms: Type.Array(Type.String(), { examples: [['archiv', 'collection']] }),
  tools: Type.Array(Type.String(), {
    examples: [['archive_vector_collection']],
    description: 'Tools it names.',
  }),
  error_codes: Type.Array(Type.String(), { examples: [['conflict']], description: 'Error codes it names.' }),
});

interface Retrieved {
  passages: {
    source: string;
    anchor: string;
    heading: string;
    excerpt: string;
    score: number;
    vector_score: number;
    keyword_score: number;
    matched_terms: string[];
    tools: string[];
    error_codes: string[];
  }[];
  answer: string | null;
  model: string | null;
  model_error: string | null;
}

const GUIDE_SYSTEM =
  'You answer questions about using a workspace operations service, only from the numbered documentation ' +
  'passages given. Cite the passages you use as [1], [2]. If they do not answer the question, say so.';

/** The best `k` passages of the documentation for a question, with their hits. */
async function search(question: string, k: number) {
  const index = await guideIndex();
  const hits = index.search(question, k);
  const passages = hits.map((h) => ({
    source: h.item.source,
    anchor: h.item.anchor,
    heading: h.item.heading,
    excerpt: h.item.text.length > 600 ? `${h.item.text.slice(0, 599)}…` : h.item.text,
    score: h.score,
    vector_score: h.vector_score,
    keyword_score: h.keyword_score,
    matched_terms: h.matched_terms,
    tools: h.item.tools,
    error_codes: h.item.error_codes,
  }));
  return { hits, passages };
}

async function retrieve(
  ctx: OperationContext,
  input: { question: string; top_k?: number },
): Promise<Retrieved> {
  const { hits, passages } = await search(input.question, input.top_k ?? 5);
  if (!modelConfigured(ctx.config) || passages.length === 0) {
    return { passages, answer: null, model: null, model_error: null };
  }
  const context = hits
    .map((h, i) => `[${i + 1}] ${h.item.source}${h.item.anchor} ${h.item.heading}\n${h.item.text}`)
    .join('\n\n');
  try {
    const turn = await chat(
      ctx.config,
      [
        { role: 'system', content: GUIDE_SYSTEM },
        { role: 'user', content: `Question: ${input.question}\n\nPassages:\n${context}` },
      ],
      [],
    );
    return { passages, answer: turn.content, model: turn.model, model_error: null };
  } catch (error) {
    // The passages still answer; the session says why no generated answer came with them.
    if (!(error instanceof ModelError)) throw error;
    return { passages, answer: null, model: ctx.config.llmModel ?? null, model_error: error.message };
  }
}

function passagesText(passages: Retrieved['passages']): string {
  if (passages.length === 0) return 'No passage of the documentation matches this question.';
  return passages.map((p, i) => `[${i + 1}] ${p.source}${p.anchor} — ${p.heading}`).join('\n');
}

export const createServiceGuideSession = defineOperation({
  name: 'create_service_guide_session',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'create',
  creates: 'agent_session',
  summary: 'Ask how to use this service',
  description:
    "Answers a question about using this service from its own documentation: README, docs/ (split at headings), the error catalogue and the tool descriptions with their scopes. Returns the most relevant passages with their source file and anchor, and the tools and error codes they mention; with the operator's language model configured, also a short generated answer citing those passages as [n] (mode model), otherwise mode passages and answer null. Stores the exchange as an Agent Grid session with two session items (the question, the answer). Use it to learn a workflow, a field or an error before calling tools.",
  input: Strict({
    question: Type.String({
      minLength: 1,
      maxLength: 2000,
      examples: ['How do I restore an archived vector collection?'],
    }),
    top_k: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, description: 'Passages returned; default 5.' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/assistants/service-guide/sessions' },
  heavyRead: retrieve,
  responseKey: 'session',
  response: Shape({
    session: SessionSchema,
    mode: Enum(['model', 'passages'] as const),
    answer: Nullable(
      Text('Ask the operator to restore it [1]; until then searches answer 409 conflict [2].'),
    ),
    model_error: Nullable(Text('the model endpoint timed out'), {
      description: 'Why a configured model gave no answer.',
    }),
    passages: Type.Array(PassageSchema),
    tools: Type.Array(Type.String(), { examples: [['archive_vector_collection']] }),
    error_codes: Type.Array(Type.String(), { examples: [['conflict']] }),
    items: Type.Array(SessionItemSchema),
  }),
  handler: async (ctx, input, retrieved) => {
    const mode = retrieved.answer !== null ? 'model' : 'passages';
    const session: AgentSessionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('ases'),
      agent_id: null,
      user_id: null,
      title: input.question.length > 200 ? `${input.question.slice(0, 199)}…` : input.question,
      status: 'open',
      metadata: JSON.stringify({ source: 'service_guide', mode }),
      item_count: 2,
      last_item_at: ctx.now,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertSession(ctx.db, session);
    const item = (
      sequence: number,
      role: 'user' | 'assistant',
      content: string,
      metadata: object,
    ): AgentSessionItemsTable => ({
      workspace_id: ctx.workspaceId,
      id: newId('asi'),
      session_id: session.id,
      sequence,
      role,
      content,
      run_id: null,
      tool_call_id: null,
      metadata: JSON.stringify(metadata),
      created_at: ctx.now,
      updated_at: ctx.now,
    });
    const citations = passagesText(retrieved.passages);
    const rows = [
      item(1, 'user', input.question, {}),
      item(2, 'assistant', retrieved.answer !== null ? `${retrieved.answer}\n\n${citations}` : citations, {
        mode,
        passages: retrieved.passages.length,
        ...(retrieved.model ? { model: retrieved.model } : {}),
        ...(retrieved.model_error ? { model_error: retrieved.model_error } : {}),
      }),
    ];
    for (const row of rows) await insertSessionItem(ctx.db, row);
    const created = toSession(session);
    ctx.audit({ targetType: 'agent_session', targetId: session.id, changedFields: ['title', 'metadata'] });
    ctx.emit({
      name: 'agent_session.created',
      targetType: 'agent_session',
      targetId: session.id,
      data: created,
    });
    const items = rows.map(toSessionItem);
    for (const sessionItem of items) {
      ctx.audit({
        targetType: 'agent_session_item',
        targetId: sessionItem.id,
        changedFields: ['role', 'content'],
      });
      ctx.emit({
        name: 'agent_session_item.created',
        targetType: 'agent_session_item',
        targetId: sessionItem.id,
        data: sessionItem,
      });
    }
    return { body: guideBody(created, mode, retrieved, items), createdId: session.id };
  },
  // A retry with the same idempotency_key: the session as it is now, with the exchange its items recorded.
  replay: async (ctx, session) => {
    const items = await sessionItemsBySequence(ctx.db, ctx.workspaceId, String(session.id), [1, 2]);
    const [question, answered] = items;
    const metadata = (answered?.metadata ?? {}) as { mode?: string; passages?: number; model_error?: string };
    // The same passages (the index is built from this deploy's documentation), not asked of the model again;
    // a model's answer is the item's text before its passages' citation lines.
    const count = Number(metadata.passages ?? 0);
    const { passages } = count > 0 ? await search(question?.content ?? '', count) : { passages: [] };
    const mode = metadata.mode === 'model' ? 'model' : 'passages';
    const lines = (answered?.content ?? '').split('\n');
    const answer = mode === 'model' ? lines.slice(0, Math.max(0, lines.length - count - 1)).join('\n') : null;
    return guideBody(session, mode, { answer, model_error: metadata.model_error ?? null, passages }, items);
  },
});

type Exchange = Pick<Retrieved, 'answer' | 'model_error' | 'passages'>;

function guideBody(session: unknown, mode: string, exchange: Exchange, items: unknown[]) {
  const union = (key: 'tools' | 'error_codes') =>
    [...new Set(exchange.passages.flatMap((p) => p[key]))].sort();
  return {
    session,
    mode,
    answer: exchange.answer,
    model_error: exchange.model_error,
    passages: exchange.passages,
    tools: union('tools'),
    error_codes: union('error_codes'),
    items,
  };
}
