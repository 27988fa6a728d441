// Contacts, companies, tasks and activities: the rules of each operation, with database state checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, MutableClock, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
const clock = new MutableClock(new Date('2026-03-01T09:00:00.000Z'));

beforeAll(async () => {
  h = await Harness.start({ clock });
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });

describe('contacts and companies', () => {
  it('links a contact to an existing company and keeps company_name without one', async () => {
    const company = (
      await post('/v1/companies', {
        name: 'Analytical Engines',
        domain: 'engines.example',
        website: 'https://engines.example',
      })
    ).body.company;
    expect(company.id).toMatch(/^cmp_/);
    const linked = await post('/v1/contacts', { name: 'Ada', company_id: company.id });
    expect(linked.body.contact).toMatchObject({ company_id: company.id, company_name: 'Analytical Engines' });
    const free = await post('/v1/contacts', { name: 'Charles', company_name: 'Difference Ltd' });
    expect(free.body.contact).toMatchObject({ company_id: null, company_name: 'Difference Ltd' });
    const missing = await post('/v1/contacts', {
      name: 'Nobody',
      company_id: 'cmp_01JUNKJUNKJUNKJUNKJUNKJUNK',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_not_found');
    const rows = await h.db
      .selectFrom('contacts')
      .select('name')
      .where('workspace_id', '=', ws.id)
      .where('name', '=', 'Nobody')
      .execute();
    expect(rows).toEqual([]);
    const invalidEmail = await post('/v1/contacts', { name: 'Bad', email: 'not-an-email' });
    expect(invalidEmail.body.error.field_errors).toEqual([
      { field: 'email', message: 'must be a valid email' },
    ]);
  });

  it('searches contacts case-insensitively over name, email, company and notes, and by company', async () => {
    const company = (await post('/v1/companies', { name: 'Searchable Co' })).body.company;
    await post('/v1/contacts', {
      name: 'Zed Zebra',
      email: 'ZED@zoo.example',
      notes: 'Prefers MORNING calls',
      company_id: company.id,
    });
    await post('/v1/contacts', { name: '100% Real', company_name: 'under_score' });
    const byEmail = await get('/v1/contacts?query=zed@ZOO');
    expect(byEmail.body.contacts.map((c: any) => c.name)).toEqual(['Zed Zebra']);
    expect((await get('/v1/contacts?query=morning')).body.contacts).toHaveLength(1);
    expect((await get('/v1/contacts?query=searchable')).body.contacts).toHaveLength(1);
    expect(
      (await get(`/v1/contacts?company_id=${company.id}`)).body.contacts.map((c: any) => c.name),
    ).toEqual(['Zed Zebra']);
    // LIKE wildcards in the query are matched literally.
    expect((await get('/v1/contacts?query=100%25')).body.contacts.map((c: any) => c.name)).toEqual([
      '100% Real',
    ]);
    expect((await get('/v1/contacts?query=under_')).body.contacts).toHaveLength(1);
    expect((await get('/v1/contacts?query=under%25score')).body.contacts).toHaveLength(0);
  });

  it('searches companies over name, domain, website and notes', async () => {
    await post('/v1/companies', { name: 'Quiet Corp', domain: 'hush.example', notes: 'Met at the LIBRARY' });
    expect((await get('/v1/companies?query=HUSH')).body.companies.map((c: any) => c.name)).toEqual([
      'Quiet Corp',
    ]);
    expect((await get('/v1/companies?query=library')).body.companies).toHaveLength(1);
  });
});

describe('tasks', () => {
  it('creates open tasks, accepts status open only, and checks related records', async () => {
    const contact = (await post('/v1/contacts', { name: 'Task Owner' })).body.contact;
    const task = await post('/v1/tasks', {
      title: 'Call back',
      description: 'About the renewal',
      status: 'open',
      due_at: '2026-03-02T10:00:00Z',
      assignee_id: 'agent-7',
      related_resource_type: 'contact',
      related_resource_id: contact.id,
    });
    expect(task.status).toBe(201);
    expect(task.body.task).toMatchObject({
      status: 'open',
      assignee_id: 'agent-7',
      related_resource_id: contact.id,
      completed_note: null,
    });
    expect(
      (await post('/v1/tasks', { title: 'x', status: 'completed' })).body.error.field_errors[0].field,
    ).toBe('status');
    const halfRelated = await post('/v1/tasks', { title: 'x', related_resource_id: contact.id });
    expect(halfRelated.body.error.field_errors).toEqual([
      { field: 'related_resource_type', message: 'is required with related_resource_id' },
    ]);
    const wrongType = await post('/v1/tasks', {
      title: 'x',
      related_resource_type: 'company',
      related_resource_id: contact.id,
    });
    expect(wrongType.status).toBe(404);
    const noDeal = await post('/v1/tasks', {
      title: 'x',
      related_resource_type: 'deal',
      related_resource_id: 'deal_missing',
    });
    expect(noDeal.status).toBe(404);
  });

  it('moves between open, completed and canceled in any direction and stores completed_note', async () => {
    const task = (await post('/v1/tasks', { title: 'Cycle' })).body.task;
    clock.advance(60_000);
    const done = await patch(`/v1/tasks/${task.id}`, {
      status: 'completed',
      completed_note: 'Left a voicemail',
    });
    expect(done.body.task).toMatchObject({
      status: 'completed',
      completed_note: 'Left a voicemail',
      completed_at: '2026-03-01T09:01:00.000Z',
    });
    expect(done.body.task.updated_at).toBe('2026-03-01T09:01:00.000Z');
    const canceled = await patch(`/v1/tasks/${task.id}`, { status: 'canceled' });
    expect(canceled.body.task).toMatchObject({
      status: 'canceled',
      completed_at: null,
      completed_note: 'Left a voicemail',
    });
    const reopened = await patch(`/v1/tasks/${task.id}`, { status: 'open' });
    expect(reopened.body.task.status).toBe('open');
    const stored = await h.db
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', task.id)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('open');
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('target_id', '=', task.id)
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.name)).toEqual([
      'task.created',
      'task.completed',
      'task.canceled',
      'task.reopened',
    ]);
    expect((await patch(`/v1/tasks/${task.id}`, {})).status).toBe(400);
    expect((await patch('/v1/tasks/tsk_missing', { status: 'open' })).status).toBe(404);
    expect((await patch(`/v1/tasks/${task.id}`, { status: 'done' })).status).toBe(400);
  });

  it('keeps the deprecated complete_task callable over MCP', async () => {
    const task = (await post('/v1/tasks', { title: 'Old style' })).body.task;
    const res = await h.callTool(ws.mcpToken, 'complete_task', {
      task_id: task.id,
      completed_note: 'via old tool',
    });
    expect(res.body.task).toMatchObject({ status: 'completed', completed_note: 'via old tool' });
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(audit[0]).toMatchObject({ tool: 'complete_task', action: 'update', target_id: task.id });
  });

  it('filters tasks by status and assignee', async () => {
    await post('/v1/tasks', { title: 'Filter me', assignee_id: 'filter-agent' });
    const open = await get('/v1/tasks?status=open&assignee_id=filter-agent');
    expect(open.body.tasks.map((t: any) => t.title)).toEqual(['Filter me']);
    expect((await get('/v1/tasks?status=canceled&assignee_id=filter-agent')).body.tasks).toEqual([]);
  });
});

describe('activities', () => {
  it('logs activities at now by default or at a given time, and searches them', async () => {
    const task = (await post('/v1/tasks', { title: 'Activity target' })).body.task;
    const logged = await post('/v1/activities', {
      type: 'agent_action',
      summary: 'Drafted a FOLLOW-UP',
      body: 'Sent to review',
      related_resource_type: 'task',
      related_resource_id: task.id,
    });
    expect(logged.status).toBe(201);
    expect(logged.body.activity).toMatchObject({
      type: 'agent_action',
      occurred_at: clock.now().toISOString(),
      actor: { type: 'api_key' },
    });
    const past = await post('/v1/activities', {
      type: 'call',
      summary: 'Earlier call',
      occurred_at: '2026-02-01T08:00:00+01:00',
    });
    expect(past.body.activity.occurred_at).toBe('2026-02-01T07:00:00.000Z');
    expect((await get('/v1/activities?query=follow-up')).body.activities).toHaveLength(1);
    expect((await get('/v1/activities?query=review')).body.activities).toHaveLength(1);
    expect((await get('/v1/activities?type=call')).body.activities.map((a: any) => a.summary)).toEqual([
      'Earlier call',
    ]);
    expect(
      (await post('/v1/activities', { type: 'tweet', summary: 'x' })).body.error.field_errors[0].field,
    ).toBe('type');
  });
});
