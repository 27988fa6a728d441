// The service guide answers from the service's own documentation: a question whose answer is on one page
// cites that page (and its heading anchor), names the tools and error codes the passages mention, and the
// exchange is stored as an Agent Grid session with its items; with a model, the answer cites the passages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitMarkdown } from '../src/modules/data-agents/agent-grid/guide-index.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { type JsonServer, jsonServer } from './helpers/loopback-servers.ts';

let h: Harness;
let ws: TestWorkspace;

const ask = (w: TestWorkspace, body: unknown) =>
  h.request('POST', '/v1/assistants/service-guide/sessions', { token: w.apiKey, body });

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Guide');
});
afterAll(async () => {
  await h.close();
});

describe('create_service_guide_session', () => {
  it('cites the page that answers the question, with its anchor, tools and error codes', async () => {
    const answered = await ask(ws, {
      question:
        'How does the workspace assistant refuse a tool outside the scopes, and what if max_steps is reached?',
    });
    expect(answered.status, answered.text).toBe(201);
    expect(answered.body.mode).toBe('passages');
    expect(answered.body.answer).toBeNull();
    const top = answered.body.passages[0];
    expect(top.source).toBe('docs/modules/agent-grid.md');
    expect(top.anchor).toBe('#workspace-assistant-runs');
    expect(top.error_codes).toContain('missing_required_scope');
    expect(answered.body.tools).toContain('create_workspace_assistant_run');
  });

  it('finds a tool and an error code by what they do', async () => {
    const tool = await ask(ws, { question: 'Which tool rebuilds the workflow discovery index?', top_k: 3 });
    const sources = tool.body.passages.map((p: any) => `${p.source}${p.anchor}`);
    expect(sources).toContain('registryreindex_agent_grid_workflow_discovery');
    expect(tool.body.tools).toContain('reindex_agent_grid_workflow_discovery');
    const error = await ask(ws, { question: 'what does idempotency_conflict mean', top_k: 3 });
    expect(error.body.passages.map((p: any) => p.anchor)).toContain('idempotency_conflict');
  });

  it('stores the session and its two items, readable through the Agent Grid tools', async () => {
    const answered = await ask(ws, { question: 'How do I archive a vector collection?' });
    const session = answered.body.session;
    expect(session.item_count).toBe(2);
    expect(session.metadata).toEqual({ source: 'service_guide', mode: 'passages' });
    const items = await h.request('GET', `/v1/agent-grid/session-items?session_id=${session.id}`, {
      token: ws.apiKey,
    });
    expect(items.body.session_items.map((i: any) => [i.sequence, i.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
    ]);
    expect(items.body.session_items[0].content).toBe('How do I archive a vector collection?');
    expect(items.body.session_items[1].content).toContain('[1] ');
    // Another workspace does not see it.
    const other = await h.workspace('Other');
    const foreign = await h.request('GET', `/v1/agent-grid/sessions/${session.id}`, { token: other.apiKey });
    expect(foreign.status).toBe(404);
  });

  it('refuses bad input naming the field, and needs data_agents:read', async () => {
    const bad = await ask(ws, { question: '', top_k: 11 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field_errors.map((f: any) => f.field)).toEqual(
      expect.arrayContaining(['question', 'top_k']),
    );
    const narrow = await h.createCredential(ws.id, 'api_key', ['crm:read']);
    const refused = await h.request('POST', '/v1/assistants/service-guide/sessions', {
      token: narrow.token,
      body: { question: 'hello' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('missing_required_scope');
  });

  it('splits Markdown at headings with GitHub anchors, ignoring headings inside code', () => {
    const passages = splitMarkdown(
      'docs/x.md',
      '# Title\nintro\n## A `b` c!\ntext\n```\n# not a heading\n```\n## A b c\nmore',
    );
    expect(passages.map((p) => p.anchor)).toEqual(['#title', '#a-b-c', '#a-b-c-1']);
    expect(passages[1]!.text).toContain('# not a heading');
  });
});

describe('with a model', () => {
  let model: JsonServer;
  let guide: Harness;
  const prompts: string[] = [];

  beforeAll(async () => {
    model = await jsonServer('/v1/chat/completions', (body) => {
      prompts.push(body.messages[1].content);
      return {
        body: {
          model: 'fake-guide',
          choices: [
            {
              message: {
                role: 'assistant',
                content: 'It refuses the call with missing_required_scope [1].',
              },
            },
          ],
          usage: { prompt_tokens: 100, completion_tokens: 9 },
        },
      };
    });
    guide = await Harness.start({ env: { WOS_LLM_URL: model.url, WOS_LLM_MODEL: 'fake-guide' } });
  });
  afterAll(async () => {
    await guide.close();
    await model.close();
  });

  it('adds a generated answer citing the numbered passages', async () => {
    const w = await guide.workspace('Guide model');
    const answered = await guide.request('POST', '/v1/assistants/service-guide/sessions', {
      token: w.apiKey,
      body: {
        question:
          'How does the workspace assistant refuse a tool outside the scopes, and what if max_steps is reached?',
      },
    });
    expect(answered.status, answered.text).toBe(201);
    expect(answered.body.mode).toBe('model');
    expect(answered.body.answer).toBe('It refuses the call with missing_required_scope [1].');
    expect(prompts.at(-1)).toContain('[1] docs/modules/agent-grid.md#workspace-assistant-runs');
    expect(answered.body.items[1].content).toContain(
      '[1] docs/modules/agent-grid.md#workspace-assistant-runs',
    );
  });

  it('replays a retry with the same idempotency_key: one session, the model asked once', async () => {
    const w = await guide.workspace('Guide replay');
    const body = { question: 'How do I restore an archived vector collection?', idempotency_key: 'ask-1' };
    const ask = () =>
      guide.request('POST', '/v1/assistants/service-guide/sessions', { token: w.apiKey, body });
    const asked = prompts.length;
    const first = await ask();
    expect(first.status, first.text).toBe(201);
    const again = await ask();
    expect(again.status, again.text).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(prompts.length - asked).toBe(1);
    const { request_id: _first, ...answered } = first.body;
    const { request_id: _again, ...replayed } = again.body;
    expect(replayed).toEqual(answered);
    const sessions = await guide.request('GET', '/v1/agent-grid/sessions', { token: w.apiKey });
    expect(sessions.body.sessions.map((s: { id: string }) => s.id)).toEqual([first.body.session.id]);
    // Another question with the key is a conflict, answered before the passages are read or the model asked.
    const other = await guide.request('POST', '/v1/assistants/service-guide/sessions', {
      token: w.apiKey,
      body: { ...body, question: 'Something else?' },
    });
    expect(other.status).toBe(409);
    expect(prompts.length - asked).toBe(1);
  });
});
