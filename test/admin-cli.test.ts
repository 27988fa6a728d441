// The operator API (/admin/v1) and the `wos` CLI, which act on the same database.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { Harness, OPERATOR_TOKEN } from './helpers/harness.ts';

const run = promisify(execFile);
let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

describe('operator API', () => {
  it('requires the operator token', async () => {
    const none = await h.request('GET', '/admin/v1/workspaces');
    expect(none.status).toBe(401);
    const wrong = await h.request('GET', '/admin/v1/workspaces', { token: 'wos_op_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('wos_op_wrong');
    const apiKey = (await h.workspace()).apiKey;
    expect((await h.request('GET', '/admin/v1/workspaces', { token: apiKey })).status).toBe(401);
  });

  it('creates, reads, updates and deletes workspaces', async () => {
    const created = await h.admin('POST', '/workspaces', { name: 'Acme', modules: ['crm', 'tasks'] });
    expect(created.status).toBe(201);
    const ws = created.body.workspace;
    expect(ws).toMatchObject({
      name: 'Acme',
      mcp_auth_methods: ['mcp_token', 'api_key'],
      rate_limit_per_minute: 6000,
      billing: { credit_units: null, monthly_cap_units: null },
      entitlements: {},
    });
    expect(ws.modules).toMatchObject({ crm: true, tasks: true, support: false, notifications: false });
    expect(created.body.request_id).toBe(created.headers['x-request-id']);

    const patched = await h.admin('PATCH', `/workspaces/${ws.id}`, {
      name: 'Acme Ltd',
      modules: { support: true, crm: false },
      rate_limit_per_minute: 100,
      billing: { credit_units: 500 },
      entitlements: { contact: 10, task: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.workspace).toMatchObject({
      name: 'Acme Ltd',
      rate_limit_per_minute: 100,
      billing: { credit_units: 500, monthly_cap_units: null },
      entitlements: { contact: 10 },
    });
    expect(patched.body.workspace.modules).toMatchObject({ crm: false, support: true, tasks: true });

    const listed = await h.admin('GET', '/workspaces');
    expect(listed.body.workspaces.map((w: any) => w.id)).toContain(ws.id);
    expect((await h.admin('GET', `/workspaces/${ws.id}`)).body.workspace.name).toBe('Acme Ltd');

    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => [a.actor_type, a.surface, a.tool])).toEqual([
      ['operator', 'admin', 'admin.create_workspace'],
      ['operator', 'admin', 'admin.update_workspace'],
    ]);

    expect((await h.admin('DELETE', `/workspaces/${ws.id}`)).status).toBe(200);
    expect((await h.admin('GET', `/workspaces/${ws.id}`)).status).toBe(404);
  });

  it('rejects invalid operator input with field errors', async () => {
    const bad = await h.admin('POST', '/workspaces', { name: '', modules: ['nope'], extra: true });
    expect(bad.status).toBe(400);
    const fields = bad.body.error.field_errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['name', 'modules[0]', 'extra']));
    const ws = (await h.admin('POST', '/workspaces', { name: 'Valid' })).body.workspace;
    const badModule = await h.admin('PATCH', `/workspaces/${ws.id}`, { modules: { rockets: true } });
    expect(badModule.body.error.field_errors).toEqual([
      { field: 'modules.rockets', message: 'is not a module' },
    ]);
    const badScope = await h.admin('POST', `/workspaces/${ws.id}/credentials`, {
      kind: 'api_key',
      name: 'k',
      scopes: ['crm:admin'],
    });
    expect(badScope.body.error.field_errors[0].field).toBe('scopes[0]');
  });

  it('issues credentials whose token appears only once, lists them without tokens, and revokes them', async () => {
    const ws = (await h.admin('POST', '/workspaces', { name: 'Creds' })).body.workspace;
    const created = await h.admin('POST', `/workspaces/${ws.id}/credentials`, {
      kind: 'mcp_token',
      name: 'agent',
      scopes: ['crm:read'],
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^wos_mcp_[A-Za-z0-9_-]{43}$/);
    expect(created.body.credential).toEqual({
      id: expect.any(String),
      kind: 'mcp_token',
      name: 'agent',
      scopes: ['crm:read'],
      created_at: expect.any(String),
    });
    const listed = await h.admin('GET', `/workspaces/${ws.id}/credentials`);
    expect(listed.body.credentials).toHaveLength(1);
    expect(listed.text).not.toContain(created.body.token);
    expect((await h.admin('DELETE', `/credentials/${created.body.credential.id}`)).status).toBe(200);
    expect((await h.admin('GET', `/workspaces/${ws.id}/credentials`)).body.credentials).toEqual([]);
    expect((await h.admin('DELETE', `/credentials/${created.body.credential.id}`)).status).toBe(404);
  });
});

describe('operator API 404s', () => {
  it('say which ID is unknown, never "in this workspace"', async () => {
    const noWorkspace = { code: 'resource_not_found', message: 'No workspace has this ID.' };
    for (const [method, url] of [
      ['GET', '/workspaces/ws_missing'],
      ['PATCH', '/workspaces/ws_missing'],
      ['DELETE', '/workspaces/ws_missing'],
      ['GET', '/workspaces/ws_missing/credentials'],
      ['POST', '/workspaces/ws_missing/notes/note_x/restore'],
    ] as const) {
      const res = await h.admin(method, url, method === 'PATCH' ? { name: 'x' } : undefined);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject(noWorkspace);
    }
    const created = await h.admin('POST', '/workspaces/ws_missing/credentials', {
      kind: 'api_key',
      name: 'k',
      scopes: ['crm:read'],
    });
    expect(created.body.error).toMatchObject(noWorkspace);
    expect((await h.admin('DELETE', '/credentials/key_missing')).body.error.message).toBe(
      'No live credential has this ID.',
    );
    expect((await h.admin('GET', '/requests/req_missing')).body.error.message).toBe(
      'No request with this ID was recorded.',
    );
  });
});

describe('WOS_ADMIN_TOKEN', () => {
  it('must have at least 32 characters when set', () => {
    expect(() => loadConfig({ WOS_ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(
      /^WOS_ADMIN_TOKEN is 31 characters long; it must have at least 32/,
    );
    expect(loadConfig({ WOS_ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).toBe('x'.repeat(32));
    expect(loadConfig({ WOS_ADMIN_TOKEN: '' }).adminToken).toBeUndefined();
  });

  it('stops `wos serve` at start with a clear message when shorter', async () => {
    const env = {
      ...process.env,
      WOS_DATA_DIR: h.config.dataDir,
      WOS_LOG_LEVEL: 'silent',
      PORT: '0',
      WOS_ADMIN_TOKEN: 'short-secret',
    };
    await expect(
      run(process.execPath, ['bin/wos.js', 'serve'], { env, timeout: 20_000 }),
    ).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('wos: WOS_ADMIN_TOKEN is 12 characters long; it must have at least 32'),
    });
  });
});

describe('wos CLI', () => {
  const cli = async (...args: string[]) => {
    const env = { ...process.env, ...dbEnv(), WOS_LOG_LEVEL: 'silent' };
    const { stdout } = await run(process.execPath, ['bin/wos.js', ...args], { env });
    return JSON.parse(stdout);
  };
  const dbEnv = () => {
    const config = h.config;
    return {
      WOS_DATA_DIR: config.dataDir,
      ...(config.databaseUrl ? { WOS_DATABASE_URL: config.databaseUrl } : {}),
      ...(config.databaseSchema ? { WOS_DATABASE_SCHEMA: config.databaseSchema } : {}),
    };
  };

  it('manages workspaces, credentials and request lookups directly on the database', async () => {
    const { workspace } = await cli('workspace', 'create', '--name', 'From CLI', '--modules', 'crm,tasks');
    expect(workspace.modules.crm).toBe(true);
    expect(workspace.modules.support).toBe(false);
    const updated = await cli(
      'workspace',
      'update',
      workspace.id,
      '--enable',
      'support',
      '--rate-limit',
      'none',
      '--credit',
      '50',
    );
    expect(updated.workspace).toMatchObject({ rate_limit_per_minute: null, billing: { credit_units: 50 } });
    expect(updated.workspace.modules.support).toBe(true);
    const listed = await cli('workspace', 'list');
    expect(listed.workspaces.map((w: any) => w.name)).toContain('From CLI');

    const credential = await cli(
      'credential',
      'create',
      workspace.id,
      '--kind',
      'api_key',
      '--name',
      'cli key',
      '--scopes',
      'crm:read,crm:write',
    );
    expect(credential.token).toMatch(/^wos_sk_/);
    const call = await h.request('POST', '/v1/contacts', {
      token: credential.token,
      body: { name: 'Made with a CLI key' },
    });
    expect(call.status).toBe(201);
    const shown = await cli('request', 'show', call.body.request_id);
    expect(shown.request.workspace_id).toBe(workspace.id);
    expect(shown.request.audit_events[0]).toMatchObject({ tool: 'create_contact', surface: 'rest' });
    const creds = await cli('credential', 'list', workspace.id);
    expect(creds.credentials.map((c: any) => c.name)).toEqual(['cli key']);
    await cli('credential', 'revoke', credential.credential.id);
    expect((await h.request('GET', '/v1/contacts', { token: credential.token })).status).toBe(404);
    const adminAudit = await h.db
      .selectFrom('audit_events')
      .select(['surface', 'tool'])
      .where('workspace_id', '=', workspace.id)
      .where('actor_type', '=', 'operator')
      .orderBy('id')
      .execute();
    expect(adminAudit.map((a) => a.surface)).toEqual(['cli', 'cli', 'cli', 'cli']);
    expect(OPERATOR_TOKEN).toMatch(/^wos_op_/);
  }, 120_000); // a dozen CLI processes, each loading the TypeScript through tsx

  it('fails with a message and a non-zero exit code on bad input', async () => {
    await expect(
      run(process.execPath, ['bin/wos.js', 'credential', 'create', 'ws_x', '--kind', 'root'], {
        env: { ...process.env, ...dbEnv() },
      }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--kind must be api_key or mcp_token'),
    });
  });
});
