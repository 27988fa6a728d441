// The REST surface and the pipeline's checks, through the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });

describe('service paths', () => {
  it('serves liveness, readiness, metrics, OpenAPI, the reference and the error page', async () => {
    expect((await h.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await h.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    await get('/v1/contacts');
    const metrics = await h.request('GET', '/metrics');
    expect(metrics.text).toContain('wos_http_requests_total{method="GET",route="/v1/contacts",status="200"}');
    const openapi = await h.request('GET', '/openapi.json');
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(openapi.body.paths['/v1/contacts'].post.operationId).toBe('create_contact');
    const docs = await h.request('GET', '/docs');
    expect(docs.text).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(docs.text).not.toMatch(/https?:\/\/(cdn|unpkg)/);
    expect(docs.text).toContain("filter: true, docExpansion: 'none'");
    const asset = await h.request('GET', '/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
    const errors = await h.request('GET', '/docs/api/errors');
    for (const code of [
      'validation_failed',
      'missing_required_scope',
      'rate_limited',
      'billing_paused',
      'internal_error',
    ]) {
      expect(errors.text).toContain(`id="${code}"`);
    }
  });
});

describe('authentication', () => {
  it('asks for a Bearer token when none is sent', async () => {
    const res = await h.request('GET', '/v1/contacts');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body.error.code).toBe('authentication_required');
    const malformed = await h.request('GET', '/v1/contacts', { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });

  it('answers workspace_not_found for unknown and revoked tokens and deleted workspaces, never echoing the token', async () => {
    const unknown = await get('/v1/contacts', 'wos_sk_doesnotexist');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('workspace_not_found');
    expect(unknown.text).not.toContain('wos_sk_doesnotexist');

    const other = await h.workspace('Revocation');
    const key = await h.createCredential(other.id, 'api_key', ['crm:read']);
    expect((await get('/v1/contacts', key.token)).status).toBe(200);
    expect((await h.admin('DELETE', `/credentials/${key.credential.id}`)).status).toBe(200);
    expect((await get('/v1/contacts', key.token)).body.error.code).toBe('workspace_not_found');

    expect((await h.admin('DELETE', `/workspaces/${other.id}`)).status).toBe(200);
    const gone = await get('/v1/contacts', other.apiKey);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('workspace_not_found');
    expect(gone.text).not.toContain(other.id);
  });

  it('stores only token hashes', async () => {
    const rows = await h.db
      .selectFrom('credentials')
      .select('token_hash')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(rows.length).toBe(2);
    for (const row of rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect([ws.apiKey, ws.mcpToken]).not.toContain(row.token_hash);
    }
  });

  it('takes API keys only on REST', async () => {
    const res = await get('/v1/contacts', ws.mcpToken);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('credential_not_allowed');
  });
});

describe('check order', () => {
  it('checks the module before scopes, then scopes, then validation', async () => {
    const limited = await h.workspace('Limited', ['tasks']);
    const narrow = await h.createCredential(limited.id, 'api_key', ['tasks:read']);
    // crm is disabled: module_not_enabled even though the scope is missing too.
    const disabled = await post('/v1/contacts', { bogus: true }, narrow.token);
    expect(disabled.status).toBe(403);
    expect(disabled.body.error.code).toBe('module_not_enabled');
    // tasks is enabled but tasks:write is missing: scope error before the invalid body is looked at.
    const scope = await post('/v1/tasks', { bogus: true }, narrow.token);
    expect(scope.status).toBe(403);
    expect(scope.body.error).toMatchObject({ code: 'missing_required_scope', required_scope: 'tasks:write' });
    const invalid = await post('/v1/tasks', { bogus: true }, limited.apiKey);
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.field_errors).toEqual(
      expect.arrayContaining([
        { field: 'title', message: 'is required' },
        { field: 'bogus', message: 'is not a recognized field' },
      ]),
    );
  });

  it("asks for another module's read scope before a reference to its record is looked up", async () => {
    const contact = (await post('/v1/contacts', { name: 'Referenced' })).body.contact;
    const tasksOnly = await h.createCredential(ws.id, 'api_key', ['tasks:read', 'tasks:write']);
    const related = (id: string) => ({
      title: 'Call back',
      related_resource_type: 'contact',
      related_resource_id: id,
    });
    // The same answer whether the contact exists or not: nothing about CRM records leaks to a tasks key.
    for (const id of [contact.id, 'con_missing']) {
      const refused = await post('/v1/tasks', related(id), tasksOnly.token);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'missing_required_scope',
        required_scope: 'crm:read',
      });
    }
    const tasks = await get('/v1/tasks?limit=100', tasksOnly.token);
    expect(tasks.body.tasks.filter((t: { title: string }) => t.title === 'Call back')).toEqual([]);
    const both = await h.createCredential(ws.id, 'api_key', ['tasks:write', 'crm:read']);
    expect((await post('/v1/tasks', related(contact.id), both.token)).status).toBe(201);
    expect((await post('/v1/tasks', related('con_missing'), both.token)).status).toBe(404);
  });

  it('rate limits per workspace across its credentials, with retry information', async () => {
    const limited = await h.workspace('Rate limited');
    await h.admin('PATCH', `/workspaces/${limited.id}`, { rate_limit_per_minute: 3 });
    const second = await h.createCredential(limited.id, 'api_key', ['crm:read']);
    expect((await get('/v1/contacts', limited.apiKey)).status).toBe(200);
    expect((await get('/v1/contacts', second.token)).status).toBe(200);
    const third = await get('/v1/contacts', limited.apiKey);
    expect(third.headers.ratelimit).toMatch(/^"workspace";r=0;t=\d+$/);
    const limitedRes = await get('/v1/contacts', second.token);
    expect(limitedRes.status).toBe(429);
    expect(limitedRes.body.error.code).toBe('rate_limited');
    expect(limitedRes.body.error.retry_after_seconds).toBeGreaterThan(0);
    expect(limitedRes.headers['retry-after']).toBe(String(limitedRes.body.error.retry_after_seconds));
    expect(limitedRes.headers['ratelimit-policy']).toBe('"workspace";q=3;w=60');
    // Unlimited (null) lifts it.
    await h.admin('PATCH', `/workspaces/${limited.id}`, { rate_limit_per_minute: null });
    expect((await get('/v1/contacts', limited.apiKey)).status).toBe(200);
  });

  it('pauses billing when credit runs out or the monthly cap is reached', async () => {
    const paying = await h.workspace('Billing');
    await h.admin('PATCH', `/workspaces/${paying.id}`, { billing: { credit_units: 2 } });
    expect((await get('/v1/contacts', paying.apiKey)).status).toBe(200);
    expect((await post('/v1/contacts', { name: 'x' }, paying.apiKey)).status).toBe(201);
    const paused = await get('/v1/contacts', paying.apiKey);
    expect(paused.status).toBe(402);
    expect(paused.body.error.code).toBe('billing_paused');
    const workspace = await h.admin('GET', `/workspaces/${paying.id}`);
    expect(workspace.body.workspace.billing.credit_units).toBe(0);
    await h.admin('PATCH', `/workspaces/${paying.id}`, {
      billing: { credit_units: null, monthly_cap_units: 5 },
    });
    // 2 billed calls so far this month (the failed one is not billed): 3 more fit under the cap of 5.
    for (let i = 0; i < 3; i++) expect((await get('/v1/contacts', paying.apiKey)).status).toBe(200);
    expect((await get('/v1/contacts', paying.apiKey)).status).toBe(402);
    await h.admin('PATCH', `/workspaces/${paying.id}`, { billing: { monthly_cap_units: null } });
    expect((await get('/v1/contacts', paying.apiKey)).status).toBe(200);
  });

  it('enforces entitlements on creates and creates nothing beyond them', async () => {
    const entitled = await h.workspace('Entitled');
    await h.admin('PATCH', `/workspaces/${entitled.id}`, { entitlements: { contact: 1 } });
    expect((await post('/v1/contacts', { name: 'one' }, entitled.apiKey)).status).toBe(201);
    const over = await post('/v1/contacts', { name: 'two' }, entitled.apiKey);
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe('billing_limit_exceeded');
    const count = await h.db
      .selectFrom('contacts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', '=', entitled.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    expect((await post('/v1/tasks', { title: 'unaffected' }, entitled.apiKey)).status).toBe(201);
  });
});

describe('errors', () => {
  it('uses the envelope with docs_url and the same request_id as the header', async () => {
    const res = await post('/v1/contacts', {});
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_failed',
      message: expect.any(String),
      request_id: res.headers['x-request-id'],
      docs_url: 'http://wos.test/docs/api/errors#validation_failed',
      field_errors: [{ field: 'name', message: 'is required' }],
    });
  });

  it('reports nested paths and type errors by field', async () => {
    const res = await post('/v1/tasks', { title: 5, due_at: 'tomorrow', related_resource_type: 'planet' });
    const fields = res.body.error.field_errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['due_at', 'related_resource_type', 'title']);
  });

  it('maps malformed JSON, unknown routes, wrong methods, large bodies and other media types', async () => {
    const malformed = await h.request('POST', '/v1/contacts', { token: ws.apiKey, rawBody: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('validation_failed');
    const unknown = await get('/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('route_not_found');
    const wrong = await h.request('PUT', '/v1/contacts', { token: ws.apiKey, body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe('method_not_allowed');
    expect(wrong.headers.allow).toContain('POST');
    const big = await post('/v1/contacts', { name: 'x'.repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    const text = await h.request('POST', '/v1/contacts', {
      token: ws.apiKey,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    for (const res of [malformed, unknown, wrong, big, text]) {
      expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
    }
  });

  it('coerces query strings but never JSON bodies', async () => {
    expect((await get('/v1/tasks?limit=2')).status).toBe(200);
    const body = await post('/v1/contacts', { name: 'typed', email: 42 });
    expect(body.status).toBe(400);
    expect(body.body.error.field_errors).toEqual([{ field: 'email', message: 'must be of type string' }]);
  });
});

describe('records, audit, usage and events', () => {
  it('creates a contact with its audit event, call event and domain event in one request', async () => {
    const res = await post('/v1/contacts', {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      company_name: 'Navy',
    });
    expect(res.status).toBe(201);
    const { contact, request_id } = res.body;
    expect(contact.id).toMatch(/^con_[0-9A-Z]{26}$/);
    expect(contact.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(contact.updated_at).toBe(contact.created_at);
    expect(contact.company_name).toBe('Navy');
    expect(request_id).toBe(res.headers['x-request-id']);

    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', request_id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      workspace_id: ws.id,
      actor_type: 'api_key',
      surface: 'rest',
      tool: 'create_contact',
      action: 'create',
      target_type: 'contact',
      target_id: contact.id,
      status: 'succeeded',
    });
    expect(JSON.parse(audit[0]!.changed_fields)).toEqual(['name', 'email', 'company_name']);

    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', request_id)
      .execute();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      kind: 'api_request',
      route: 'POST /v1/contacts',
      method: 'POST',
      credential_path: 'rest/api_key',
      http_status: 201,
      error_code: null,
      units: 1,
      billed_units: 1,
    });
    const events = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['contact.created']);
    expect(JSON.parse(events[0]!.payload)).toEqual(contact);

    const fetched = await get(`/v1/contacts/${contact.id}`);
    expect(fetched.body.contact).toEqual(contact);
  });

  it('records a call event for failed calls, unbilled', async () => {
    const res = await post('/v1/contacts', { nope: 1 });
    await h.flushUsage();
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', res.body.error.request_id)
      .execute();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      http_status: 400,
      error_code: 'validation_failed',
      billed_units: 0,
      units: 1,
    });
    expect(
      await h.db
        .selectFrom('audit_events')
        .selectAll()
        .where('request_id', '=', res.body.error.request_id)
        .execute(),
    ).toEqual([]);
  });

  it('looks a request up for the operator and for the workspace, and hides it from other workspaces', async () => {
    const res = await post('/v1/tasks', { title: 'Look me up' });
    const requestId = res.body.request_id;
    const operator = await h.admin('GET', `/requests/${requestId}`);
    expect(operator.status).toBe(200);
    expect(operator.body.request.call_event).toMatchObject({ route: 'POST /v1/tasks', http_status: 201 });
    expect(operator.body.request.usage_event).toMatchObject({
      units: 1,
      billed_units: 1,
      event_type: 'api_request',
    });
    expect(operator.body.request.audit_events).toHaveLength(1);
    expect(operator.body.request.audit_events[0]).toMatchObject({
      tool: 'create_task',
      target_id: res.body.task.id,
    });

    const own = await get(`/v1/requests/${requestId}`);
    expect(own.status).toBe(200);
    expect(own.body.request.audit_events[0].target_id).toBe(res.body.task.id);
    const stranger = await h.workspace('Stranger');
    const foreign = await get(`/v1/requests/${requestId}`, stranger.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
  });

  it('keeps record history newest first, without looking the record up', async () => {
    const task = (await post('/v1/tasks', { title: 'History' })).body.task;
    await h.request('PATCH', `/v1/tasks/${task.id}`, {
      token: ws.apiKey,
      body: { status: 'completed', completed_note: 'done' },
    });
    await h.request('PATCH', `/v1/tasks/${task.id}`, { token: ws.apiKey, body: { status: 'open' } });
    const history = await get(`/v1/history?target_type=task&target_id=${task.id}`);
    expect(history.status).toBe(200);
    expect(history.body.entries.map((e: any) => [e.action, e.changed_fields])).toEqual([
      ['update', ['status']],
      ['update', ['status', 'completed_note']],
      ['create', ['title']],
    ]);
    expect(history.body.entries[0]).toMatchObject({
      actor: { type: 'api_key', name: 'api_key for tests' },
      surface: 'rest',
      tool: 'update_task',
      target_type: 'task',
    });
    const nothing = await get('/v1/history?target_type=task&target_id=tsk_unknown');
    expect(nothing.body).toEqual({ entries: [], request_id: nothing.headers['x-request-id'] });
  });

  it('summarizes only the sections the credential may read', async () => {
    const tasksOnly = await h.createCredential(ws.id, 'api_key', ['tasks:read']);
    const summary = await get('/v1/workspace', tasksOnly.token);
    expect(summary.status).toBe(200);
    expect(Object.keys(summary.body.workspace.summary)).toEqual(['tasks']);
    expect(summary.body.workspace.summary.tasks.by_status.open).toBeGreaterThan(0);
    const all = await get('/v1/workspace');
    expect(Object.keys(all.body.workspace.summary)).toEqual(
      expect.arrayContaining(['activity', 'crm', 'tasks']),
    );
    expect(all.body.workspace.summary.crm.contacts).toBeGreaterThan(0);
    const none = await h.createCredential(ws.id, 'api_key', ['projects:read']);
    const denied = await get('/v1/workspace', none.token);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('missing_required_scope');
  });

  it('gives every scope to the default credentials helper', () => {
    expect(ALL_SCOPES).toContain('audit:read');
  });
});
