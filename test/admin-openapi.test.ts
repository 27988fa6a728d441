// The operator API's own OpenAPI document (/admin/openapi.json), generated from the same declarations as
// its routes, and its validation errors, through the real app.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/catalogue.ts';
import { Harness, type HttpResult } from './helpers/harness.ts';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

let h: Harness;
let doc: any;

beforeAll(async () => {
  h = await Harness.start();
  doc = (await h.request('GET', '/admin/openapi.json')).body;
});
afterAll(() => h.close());

/** The routes the operator API serves (contract.md section 3). */
const ROUTES = [
  'POST /admin/v1/workspaces',
  'GET /admin/v1/workspaces',
  'GET /admin/v1/workspaces/{workspace_id}',
  'PATCH /admin/v1/workspaces/{workspace_id}',
  'DELETE /admin/v1/workspaces/{workspace_id}',
  'POST /admin/v1/workspaces/{workspace_id}/credentials',
  'GET /admin/v1/workspaces/{workspace_id}/credentials',
  'DELETE /admin/v1/credentials/{credential_id}',
  'POST /admin/v1/workspaces/{workspace_id}/notes/{note_id}/restore',
  'POST /admin/v1/workspaces/{workspace_id}/vector-collections/{collection_key}/restore',
  'GET /admin/v1/requests/{request_id}',
  'GET /admin/v1/outbox-failures',
  'DELETE /admin/v1/outbox-failures/{failure_id}',
];

/** Asserts a real response against the schema the document declares for its path, method and status. */
function expectDocumented(method: string, path: string, res: HttpResult) {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  let declared = operation.responses[String(res.status)];
  expect(declared, `${method} ${path} documents ${res.status}`).toBeDefined();
  if (declared.$ref) declared = doc.components.responses[declared.$ref.split('/').pop()];
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const validate = ajv.compile({
    ...declared.content['application/json'].schema,
    components: doc.components,
  });
  expect(validate(res.body), `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(
    true,
  );
  expect(res.headers['x-request-id']).toBeDefined();
}

describe('/admin/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every operator route, with the operator token as bearer scheme', async () => {
    const res = await h.request('GET', '/admin/openapi.json');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).openapi).toBe('3.1.0');
    const documented = Object.entries<any>(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual([...ROUTES].sort());
    expect(doc.components.securitySchemes.operatorToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const route of ROUTES) {
      const [method, path] = route.split(' ') as [string, string];
      const operation = doc.paths[path][method.toLowerCase()];
      expect(operation.security).toEqual([{ operatorToken: [] }]);
      expect(operation.summary).toBeTruthy();
      // Every error status references the shared envelope.
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) >= 400) expect(response).toEqual({ $ref: '#/components/responses/Error' });
      }
      expect(operation.responses['401']).toBeDefined();
      // The route the document names is the route the service serves.
      expect(
        h.service.app.hasRoute({ method: method as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }),
        route,
      ).toBe(true);
    }
    expect(doc.components.responses.Error.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
    for (const name of ['Workspace', 'Credential', 'OperatorRequestRecord', 'Note', 'ErrorEnvelope']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const credentialBody = doc.paths['/admin/v1/workspaces/{workspace_id}/credentials'].post.requestBody;
    expect(credentialBody.content['application/json'].schema.properties.scopes.items.enum).toEqual([
      ...SCOPES,
    ]);
  });

  it('declares schemas that real operator responses and errors match', async () => {
    const check = async (method: string, path: string, url: string, body?: unknown) => {
      const res = await h.admin(method, url, body);
      expectDocumented(method, `/admin/v1${path}`, res);
      return res;
    };
    const created = await check('POST', '/workspaces', '/workspaces', {
      name: 'Documented',
      modules: ['crm', 'tasks'],
    });
    expect(created.status).toBe(201);
    const id = created.body.workspace.id as string;
    await check('GET', '/workspaces', '/workspaces');
    await check('GET', '/workspaces/{workspace_id}', `/workspaces/${id}`);
    const patched = await check('PATCH', '/workspaces/{workspace_id}', `/workspaces/${id}`, {
      rate_limit_per_minute: null,
      billing: { credit_units: 100, monthly_cap_units: null },
      entitlements: { contact: 5 },
      modules: { cms: true },
    });
    expect(patched.body.workspace.entitlements).toEqual({ contact: 5 });
    const credential = await check(
      'POST',
      '/workspaces/{workspace_id}/credentials',
      `/workspaces/${id}/credentials`,
      {
        kind: 'api_key',
        name: 'Documented key',
        scopes: ['crm:read', 'crm:write'],
      },
    );
    expect(credential.status).toBe(201);
    await check('GET', '/workspaces/{workspace_id}/credentials', `/workspaces/${id}/credentials`);
    await check('GET', '/outbox-failures', '/outbox-failures');
    const unknown = await check('DELETE', '/outbox-failures/{failure_id}', '/outbox-failures/ofl_unknown');
    expect(unknown.status).toBe(404);

    const token = credential.body.token;
    const contact = await h.request('POST', '/v1/contacts', { token, body: { name: 'Ada Lovelace' } });
    const note = await h.request('POST', '/v1/notes', {
      token,
      body: { body: 'Call Ada back.', contact_id: contact.body.contact.id },
    });
    expect(note.status).toBe(201);
    await h.request('DELETE', `/v1/notes/${note.body.note.id}`, { token });
    const restored = await check(
      'POST',
      '/workspaces/{workspace_id}/notes/{note_id}/restore',
      `/workspaces/${id}/notes/${note.body.note.id}/restore`,
    );
    expect(restored.body.note.archived_at).toBeNull();
    // A workspace with every module (this one has crm and tasks only): an archived vector collection.
    const full = await h.workspace('Vectors');
    const kb = { key: 'kb', name: 'KB', dimension: 3 };
    await h.request('POST', '/v1/vector-collections', { token: full.apiKey, body: kb });
    await h.request('DELETE', '/v1/vector-collections/kb', { token: full.apiKey });
    const vectors = await check(
      'POST',
      '/workspaces/{workspace_id}/vector-collections/{collection_key}/restore',
      `/workspaces/${full.id}/vector-collections/kb/restore`,
    );
    expect(vectors.body.vector_collection.status).toBe('active');
    const lookup = await check('GET', '/requests/{request_id}', `/requests/${note.body.request_id}`);
    expect(lookup.body.request.workspace_id).toBe(id);

    await check('DELETE', '/credentials/{credential_id}', `/credentials/${credential.body.credential.id}`);
    await check('DELETE', '/workspaces/{workspace_id}', `/workspaces/${id}`);
    // Errors match the shared envelope the document references.
    expect((await check('GET', '/workspaces/{workspace_id}', `/workspaces/${id}`)).status).toBe(404);
    expect((await check('POST', '/workspaces', '/workspaces', { name: '' })).status).toBe(400);
    const anonymous = await h.request('GET', '/admin/v1/workspaces');
    expectDocumented('GET', '/admin/v1/workspaces', anonymous);
    expect(anonymous.status).toBe(401);
  });

  it('is linked from /docs and rendered at /docs/admin', async () => {
    expect((await h.request('GET', '/docs')).text).toContain('href="/admin/openapi.json"');
    const page = await h.request('GET', '/docs/admin');
    expect(page.status).toBe(200);
    expect(page.text).toContain("url: '/admin/openapi.json'");
  });
});

describe('operator API validation', () => {
  it('answers a mistyped scope with validation_failed listing every valid scope', async () => {
    const ws = await h.admin('POST', '/workspaces', { name: 'Scopes' });
    const res = await h.admin('POST', `/workspaces/${ws.body.workspace.id}/credentials`, {
      kind: 'api_key',
      name: 'Typo',
      scopes: ['crm:read', 'crm:wrte'],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.field_errors).toEqual([
      { field: 'scopes[1]', message: `must be one of: ${SCOPES.join(', ')}` },
    ]);
    for (const scope of SCOPES) expect(res.body.error.message).toContain(scope);
    expectDocumented('POST', '/admin/v1/workspaces/{workspace_id}/credentials', res);
  });
});
