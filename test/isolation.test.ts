// Tenant isolation: another workspace's IDs are 404 on every read and write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let owner: TestWorkspace;
let stranger: TestWorkspace;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await Harness.start();
  owner = await h.workspace('Owner');
  stranger = await h.workspace('Stranger');
  const post = async (url: string, body: unknown) =>
    (await h.request('POST', url, { token: owner.apiKey, body })).body;
  ids.company = (await post('/v1/companies', { name: 'Owner Inc' })).company.id;
  ids.contact = (await post('/v1/contacts', { name: 'Owner Person', company_id: ids.company })).contact.id;
  ids.task = (
    await post('/v1/tasks', {
      title: 'Owner task',
      related_resource_type: 'contact',
      related_resource_id: ids.contact,
    })
  ).task.id;
  ids.activity = (await post('/v1/activities', { type: 'call', summary: 'Owner call' })).activity.id;
});
afterAll(() => h.close());

describe('a second workspace', () => {
  it('gets 404 reading every record of the first', async () => {
    const paths = {
      contact: `/v1/contacts/${ids.contact}`,
      company: `/v1/companies/${ids.company}`,
      task: `/v1/tasks/${ids.task}`,
      activity: `/v1/activities/${ids.activity}`,
    };
    for (const [type, path] of Object.entries(paths)) {
      const own = await h.request('GET', path, { token: owner.apiKey });
      expect(own.status, type).toBe(200);
      const foreign = await h.request('GET', path, { token: stranger.apiKey });
      expect(foreign.status, type).toBe(404);
      expect(foreign.body.error.code).toBe('resource_not_found');
      expect(foreign.text).not.toContain(owner.id);
    }
  });

  it("gets 404 writing to or referencing the first workspace's records, and changes nothing", async () => {
    const update = await h.request('PATCH', `/v1/tasks/${ids.task}`, {
      token: stranger.apiKey,
      body: { status: 'completed' },
    });
    expect(update.status).toBe(404);
    const complete = await h.callTool(stranger.mcpToken, 'complete_task', { task_id: ids.task });
    expect(complete.body.error.code).toBe('resource_not_found');
    const task = await h.db
      .selectFrom('tasks')
      .select('status')
      .where('id', '=', ids.task)
      .executeTakeFirstOrThrow();
    expect(task.status).toBe('open');

    const references = [
      ['/v1/contacts', { name: 'x', company_id: ids.company }],
      ['/v1/tasks', { title: 'x', related_resource_type: 'contact', related_resource_id: ids.contact }],
      ['/v1/tasks', { title: 'x', related_resource_type: 'company', related_resource_id: ids.company }],
      [
        '/v1/activities',
        { type: 'note', summary: 'x', related_resource_type: 'task', related_resource_id: ids.task },
      ],
    ] as const;
    for (const [url, body] of references) {
      const res = await h.request('POST', url, { token: stranger.apiKey, body });
      expect(res.status, url).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    const strangerRows = await h.db
      .selectFrom('contacts')
      .selectAll()
      .where('workspace_id', '=', stranger.id)
      .execute();
    expect(strangerRows).toEqual([]);
  });

  it("sees none of the first workspace's records in lists, searches or history", async () => {
    for (const url of ['/v1/contacts', '/v1/companies', '/v1/tasks', '/v1/activities']) {
      const res = await h.request('GET', url, { token: stranger.apiKey });
      const key = Object.keys(res.body).find((k) => k !== 'request_id')!;
      expect(res.body[key], url).toEqual([]);
    }
    const history = await h.request('GET', `/v1/history?target_type=contact&target_id=${ids.contact}`, {
      token: stranger.apiKey,
    });
    expect(history.body.entries).toEqual([]);
    const summary = await h.request('GET', '/v1/workspace', { token: stranger.apiKey });
    expect(summary.body.workspace.summary.crm).toMatchObject({ contacts: 0, companies: 0 });
  });
});
