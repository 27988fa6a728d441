// Agent Grid definitions: agents and workflows, their checks when saved, and their immutable numbered versions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other workspace');
});
afterAll(() => h.close());

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const fields = (response: { body: any }) => response.body.error.field_errors.map((e: any) => e.field);
const count = async (table: 'agent_definitions' | 'agent_workflows', workspaceId = ws.id) =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const agentBody = (key: string, extra: Record<string, unknown> = {}) => ({
  key,
  name: `Agent ${key}`,
  instructions: 'Find the contact and file a task.',
  model: 'gpt-4o-mini',
  tools: ['search_contacts', 'create_task'],
  ...extra,
});

describe('agent definitions', () => {
  it('check every tool against the registry and keep keys unique', async () => {
    const unknown = await post(
      '/v1/agent-grid/agents',
      agentBody('triage', { tools: ['search_contacts', 'create_task', 'send_rocket'] }),
    );
    expect(unknown.status).toBe(400);
    expect(fields(unknown)).toEqual(['tools[2]']);
    const twice = await post(
      '/v1/agent-grid/agents',
      agentBody('triage', { tools: ['create_task', 'create_task'] }),
    );
    expect(fields(twice)).toEqual(['tools[1]']);
    // A REST-only lookup is not a tool an agent can call.
    const lookup = await post('/v1/agent-grid/agents', agentBody('triage', { tools: ['get_contact'] }));
    expect(fields(lookup)).toEqual(['tools[0]']);
    const extra = await post('/v1/agent-grid/agents', { ...agentBody('triage'), temperature: 0.2 });
    expect(fields(extra)).toEqual(['temperature']);
    expect(await count('agent_definitions')).toBe(0);

    const created = await post(
      '/v1/agent-grid/agents',
      agentBody('triage', { metadata: { team: 'support' } }),
    );
    expect(created.status).toBe(201);
    expect(created.body.agent).toMatchObject({
      key: 'triage',
      model: 'gpt-4o-mini',
      tools: ['search_contacts', 'create_task'],
      status: 'active',
      latest_version: 0,
      metadata: { team: 'support' },
    });
    const duplicate = await post('/v1/agent-grid/agents', agentBody('triage'));
    expect(duplicate.status).toBe(400);
    expect(fields(duplicate)).toEqual(['key']);
    // Keys are per workspace.
    expect((await post('/v1/agent-grid/agents', agentBody('triage'), other.apiKey)).status).toBe(201);

    const viaMcp = await h.callTool(
      ws.mcpToken,
      'create_agent_definition',
      agentBody('mcp_agent', { tools: [] }),
    );
    expect(viaMcp.result.isError).toBeFalsy();
    expect(viaMcp.body.agent.key).toBe('mcp_agent');
    const listed = await get('/v1/agent-grid/agents?key=triage');
    expect(listed.body.agents.map((a: any) => a.id)).toEqual([created.body.agent.id]);
    expect((await get(`/v1/agent-grid/agents/${created.body.agent.id}`)).body.agent.key).toBe('triage');
    expect((await get(`/v1/agent-grid/agents/${created.body.agent.id}`, other.apiKey)).status).toBe(404);
  });

  it('are snapshotted as immutable numbered versions; an update makes none', async () => {
    const agent = (await post('/v1/agent-grid/agents', agentBody('versioned'))).body.agent;
    const v1 = await post('/v1/agent-grid/agent-versions', { agent_id: agent.id, changelog: 'First.' });
    expect(v1.status).toBe(201);
    expect(v1.body.agent_version).toMatchObject({ agent_id: agent.id, version: 1, tools: agent.tools });

    const badTools = await patch(`/v1/agent-grid/agents/${agent.id}`, { tools: ['list_tasks', 'nope'] });
    expect(fields(badTools)).toEqual(['tools[1]']);
    const updated = await patch(`/v1/agent-grid/agents/${agent.id}`, {
      instructions: 'Only read.',
      tools: ['list_tasks'],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.agent).toMatchObject({
      instructions: 'Only read.',
      tools: ['list_tasks'],
      latest_version: 1,
    });
    const same = await patch(`/v1/agent-grid/agents/${agent.id}`, { instructions: 'Only read.' });
    expect(same.body.agent.updated_at).toBe(updated.body.agent.updated_at);

    const v2 = (await post('/v1/agent-grid/agent-versions', { agent_id: agent.id })).body.agent_version;
    expect(v2).toMatchObject({
      version: 2,
      instructions: 'Only read.',
      tools: ['list_tasks'],
      changelog: null,
    });
    // Version 1 still holds what it froze.
    const first = (await get(`/v1/agent-grid/agent-versions/${v1.body.agent_version.id}`)).body.agent_version;
    expect(first).toMatchObject({ version: 1, instructions: 'Find the contact and file a task.' });

    // Concurrent snapshots never share a number.
    const concurrent = await Promise.all(
      Array.from({ length: 5 }, () => post('/v1/agent-grid/agent-versions', { agent_id: agent.id })),
    );
    expect(concurrent.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(concurrent.map((r) => r.body.agent_version.version).sort()).toEqual([3, 4, 5, 6, 7]);
    const page1 = await get(`/v1/agent-grid/agent-versions?agent_id=${agent.id}&limit=4`);
    const page2 = await get(
      `/v1/agent-grid/agent-versions?agent_id=${agent.id}&limit=4&cursor=${page1.body.next_cursor}`,
    );
    expect(
      [...page1.body.agent_versions, ...page2.body.agent_versions].map((v: any) => v.version).sort(),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(page2.body.next_cursor).toBeUndefined();
    expect((await get(`/v1/agent-grid/agents/${agent.id}`)).body.agent.latest_version).toBe(7);

    await patch(`/v1/agent-grid/agents/${agent.id}`, { status: 'archived' });
    const archived = await post('/v1/agent-grid/agent-versions', { agent_id: agent.id });
    expect(archived.status).toBe(409);
    expect(archived.body.error.message).toContain('archived');
    expect((await post('/v1/agent-grid/agent-versions', { agent_id: agent.id }, other.apiKey)).status).toBe(
      404,
    );
  });
});

const workflowBody = (key: string, steps: unknown[], trigger?: unknown) => ({
  key,
  name: `Workflow ${key}`,
  ...(trigger ? { trigger } : {}),
  steps,
});

describe('agent workflows', () => {
  let agentKey: string;
  beforeAll(async () => {
    const agent = (await post('/v1/agent-grid/agents', agentBody('writer', { tools: ['create_task'] }))).body
      .agent;
    await post('/v1/agent-grid/agent-versions', { agent_id: agent.id });
    agentKey = agent.key;
  });

  const find = {
    key: 'find',
    kind: 'tool',
    tool: 'search_contacts',
    arguments: { query: { $from: 'input.email' } },
  };

  it('check tools, agents and references when saved, naming the step', async () => {
    const cases: [unknown[], string[]][] = [
      [[find, { key: 'file', kind: 'tool', tool: 'file_ticket' }], ['steps[1].tool']],
      [
        [find, { key: 'file', kind: 'tool', tool: 'create_task', arguments: { titel: 'x' } }],
        ['steps[1].arguments.titel'],
      ],
      [
        [
          find,
          {
            key: 'file',
            kind: 'tool',
            tool: 'create_task',
            arguments: { title: { $ref: 'steps.lookup.output.name' } },
          },
        ],
        ['steps[1].arguments.title'],
      ],
      [
        [
          { ...find, arguments: { query: { $ref: 'steps.file.output.id' } } },
          { key: 'file', kind: 'tool', tool: 'create_task' },
        ],
        ['steps[0].arguments.query'],
      ],
      [[{ ...find, arguments: { query: { $ref: 'steps.find.output.x' } } }], ['steps[0].arguments.query']],
      [[find, { key: 'find', kind: 'tool', tool: 'create_task' }], ['steps[1].key']],
      [[find, { key: 'ask', kind: 'agent', agent_key: 'nobody' }], ['steps[1].agent_key']],
      [
        [find, { key: 'ask', kind: 'agent', agent_key: agentKey, agent_version: 9 }],
        ['steps[1].agent_version'],
      ],
      [
        [find, { key: 'ask', kind: 'agent', tool: 'create_task' }],
        ['steps[1].tool', 'steps[1].agent_key'],
      ],
      [[{ ...find, arguments: { query: { $ref: 'env.secret' } } }], ['steps[0].arguments.query']],
      [[{ ...find, arguments: { query: { $from: 'env.secret' } } }], ['steps[0].arguments.query']],
      [
        [{ ...find, arguments: { query: { $from: 'input.email', $ref: 'input.email' } } }],
        ['steps[0].arguments.query'],
      ],
    ];
    for (const [steps, expected] of cases) {
      const response = await post('/v1/agent-grid/workflows', workflowBody('bad', steps));
      expect(response.status, JSON.stringify(steps)).toBe(400);
      expect(fields(response), JSON.stringify(steps)).toEqual(expected);
    }
    const triggers: [unknown, string[]][] = [
      [{ type: 'event' }, ['trigger.event_type']],
      [{ type: 'event', event_type: 'contact.exploded' }, ['trigger.event_type']],
      [{ type: 'schedule', cadence: 'weekly' }, ['trigger.day_of_week']],
      [{ type: 'manual', cadence: 'daily' }, ['trigger.cadence']],
      [{ type: 'schedule', cadence: 'hourly', time: '09:00' }, ['trigger.time']],
    ];
    for (const [trigger, expected] of triggers) {
      const response = await post('/v1/agent-grid/workflows', workflowBody('bad', [find], trigger));
      expect(fields(response), JSON.stringify(trigger)).toEqual(expected);
    }
    expect(await count('agent_workflows')).toBe(0);
  });

  it('store valid steps and triggers, and version them like agents', async () => {
    const steps = [
      find,
      {
        key: 'draft',
        kind: 'agent',
        agent_key: agentKey,
        agent_version: 1,
        arguments: { contact: { $from: 'steps.find.output.contacts.0' } },
      },
      {
        key: 'file',
        kind: 'tool',
        tool: 'create_task',
        // The former template key is still read, and stored (and answered) as $from.
        arguments: { title: { $ref: 'steps.draft.output.title' }, description: 'Follow up' },
      },
    ];
    const created = await post(
      '/v1/agent-grid/workflows',
      workflowBody('followup', steps, { type: 'event', event_type: 'contact.created' }),
    );
    expect(created.status).toBe(201);
    const workflow = created.body.workflow;
    expect(workflow.trigger).toEqual({
      type: 'event',
      event_type: 'contact.created',
      cadence: null,
      time: null,
      day_of_week: null,
      day_of_month: null,
    });
    expect(workflow.steps[1]).toMatchObject({
      kind: 'agent',
      agent_key: agentKey,
      agent_version: 1,
      tool: null,
    });
    expect(workflow.steps[2].arguments.title).toEqual({ $from: 'steps.draft.output.title' });
    expect(workflow.steps[1].arguments.contact).toEqual({ $from: 'steps.find.output.contacts.0' });

    const v1 = (await post('/v1/agent-grid/workflow-versions', { workflow_id: workflow.id, changelog: 'v1' }))
      .body.workflow_version;
    expect(v1).toMatchObject({ version: 1, workflow_id: workflow.id, changelog: 'v1' });
    const schedule = { type: 'schedule', cadence: 'monthly', day_of_month: 31 };
    const updated = await patch(`/v1/agent-grid/workflows/${workflow.id}`, {
      trigger: schedule,
      steps: [find],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.workflow.trigger).toMatchObject({
      type: 'schedule',
      cadence: 'monthly',
      time: '00:00',
      day_of_month: 31,
    });
    expect(updated.body.workflow.latest_version).toBe(1);
    const badUpdate = await patch(`/v1/agent-grid/workflows/${workflow.id}`, {
      steps: [{ ...find, tool: 'nope' }],
    });
    expect(fields(badUpdate)).toEqual(['steps[0].tool']);
    const v2 = (await post('/v1/agent-grid/workflow-versions', { workflow_id: workflow.id })).body
      .workflow_version;
    expect(v2.version).toBe(2);
    expect(v2.steps).toHaveLength(1);
    expect((await get(`/v1/agent-grid/workflow-versions/${v1.id}`)).body.workflow_version.steps).toHaveLength(
      3,
    );

    const listed = await get('/v1/agent-grid/workflows?trigger_type=schedule');
    expect(listed.body.workflows.map((w: any) => w.id)).toEqual([workflow.id]);
    expect(
      (await get(`/v1/agent-grid/workflow-versions?workflow_id=${workflow.id}`)).body.workflow_versions,
    ).toHaveLength(2);
    expect((await get('/v1/agent-grid/workflows', other.apiKey)).body.workflows).toEqual([]);
    expect((await get(`/v1/agent-grid/workflows/${workflow.id}`, other.apiKey)).status).toBe(404);
    expect((await patch(`/v1/agent-grid/workflows/${workflow.id}`, { name: 'x' }, other.apiKey)).status).toBe(
      404,
    );
    const viaRecord = await h.callTool(ws.mcpToken, 'get_record', {
      type: 'agent_workflow_version',
      id: v2.id,
    });
    expect(viaRecord.body.record.version).toBe(2);

    // Steps saved with the former template key ({"$ref": ...}) are read as {"$from": ...}.
    const former = [
      {
        ...find,
        agent_key: null,
        agent_version: null,
        description: null,
        arguments: { query: { $ref: 'input.email' } },
      },
    ];
    await h.db
      .updateTable('agent_workflow_versions')
      .set({ steps: JSON.stringify(former) })
      .where('workspace_id', '=', ws.id)
      .where('id', '=', v2.id)
      .execute();
    const read = (await get(`/v1/agent-grid/workflow-versions/${v2.id}`)).body.workflow_version;
    expect(read.steps[0].arguments).toEqual({ query: { $from: 'input.email' } });
  });
});
