// The two reads the console needs beyond the existing API, through the real app: GET /v1/me (what the
// calling key may do) and GET /v1/insights/sites/{id}/usage (events a site sent in the last hour and day).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const clock = new MutableClock(new Date('2026-11-21T12:30:00.000Z'));
const ORIGIN = 'https://shop.example.com';
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start({ clock });
  ws = await h.workspace('Console');
  other = await h.workspace('Other');
});
afterAll(() => h.close());

describe(`console reads (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('GET /v1/me names the workspace, the credential, its scopes and the enabled modules', async () => {
    const all = await h.request('GET', '/v1/me', { token: ws.apiKey });
    expect(all.status, all.text).toBe(200);
    expect(all.body.me.workspace).toEqual({ id: ws.id, name: 'Console' });
    expect(all.body.me.credential).toMatchObject({ kind: 'api_key', name: 'api_key for tests' });
    expect(all.body.me.scopes).toContain('bi:write');
    expect(all.body.me.modules).toContain('product_analytics_bi');
    expect(all.body.request_id).toMatch(/^req_/);

    const narrow = await h.createCredential(ws.id, 'api_key', ['analytics:read']);
    const me = await h.request('GET', '/v1/me', { token: narrow.token });
    expect(me.body.me.scopes).toEqual(['analytics:read']);
    expect(me.body.me.credential.id).toBe(narrow.credential.id);

    const few = await h.admin('POST', '/workspaces', { name: 'Few', modules: ['crm', 'workspace'] });
    const key = (await h.createCredential(few.body.workspace.id, 'api_key')).token;
    const modules = (await h.request('GET', '/v1/me', { token: key })).body.me.modules;
    expect(modules).toContain('crm');
    expect(modules).not.toContain('product_analytics_bi');

    const tool = await h.callTool(ws.mcpToken, 'get_current_credential', {});
    expect(tool.body.me.credential.kind).toBe('mcp_token');
    expect((await h.request('GET', '/v1/me')).status).toBe(401);
    const unknown = await h.request('GET', '/v1/me?x=1', { token: ws.apiKey });
    expect([unknown.status, unknown.body.error.field_errors[0].field]).toEqual([400, 'x']);
  });

  it('counts the events a site sent in the last hour and the last 24 hours', async () => {
    const created = await h.request('POST', '/v1/insights/sites', {
      token: ws.apiKey,
      body: { name: 'Shop', allowed_origins: [ORIGIN] },
    });
    const site = created.body.analytics_site;
    const send = async (n: number) => {
      const events = Array.from({ length: n }, (_, i) => ({
        app: 'shop',
        event_name: 'page.viewed',
        object_type: 'page',
        object_id: `p${i}`,
      }));
      const res = await h.request('POST', `/v1/insights/app-events?site_key=${site.site_key}`, {
        body: { events },
        headers: { origin: ORIGIN },
      });
      expect(res.status, res.text).toBe(202);
    };
    const usage = async () => {
      const res = await h.request('GET', `/v1/insights/sites/${site.id}/usage`, { token: ws.apiKey });
      expect(res.status, res.text).toBe(200);
      return [res.body.site_usage.last_hour, res.body.site_usage.last_24_hours];
    };
    expect(await usage()).toEqual([0, 0]);
    await send(3);
    clock.advance(2 * 3600_000);
    await send(2);
    expect(await usage()).toEqual([2, 5]);
    clock.advance(23 * 3600_000);
    expect(await usage()).toEqual([0, 2]);

    const foreign = await h.request('GET', `/v1/insights/sites/${site.id}/usage`, { token: other.apiKey });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'resource_not_found']);
    const narrow = await h.createCredential(ws.id, 'api_key', ['bi:read']);
    const denied = await h.request('GET', `/v1/insights/sites/${site.id}/usage`, { token: narrow.token });
    expect([denied.status, denied.body.error.required_scope]).toEqual([403, 'analytics:read']);
  });
});
