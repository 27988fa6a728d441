// One contract test over the registry: every operation is declared completely and served on both surfaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES, SCOPES } from '../src/core/catalogue.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import { idempotencyScope } from '../src/core/idempotency.ts';
import { successStatus } from '../src/core/response-schema.ts';
import { compileResponseSchema } from '../src/core/schema.ts';
import {
  DISCOVERY_TOOLS,
  PROFILE_NAMES,
  TOOL_PROFILES,
  type ToolProfile,
} from '../src/core/tool-profiles.ts';
import { buildRegistry } from '../src/registry.ts';
import { repeatsHarmlessly } from '../src/surfaces/mcp/mcp-tools.ts';
import { withoutAnnotations } from '../src/surfaces/mcp/tool-schemas.ts';
import { exampleOf } from '../src/surfaces/openapi/examples.ts';
import { CreateInputs, createdId } from './helpers/create-inputs.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { openObjects, unportable, untypedFields } from './helpers/tool-schema-checks.ts';

const registry = buildRegistry();

/**
 * Inputs this machine needs instead of the documented ones: outbound URLs must resolve, and a test machine
 * may resolve no public host name, so they point at the loopback address (WOS_WEBHOOK_ALLOW_PRIVATE).
 */
const MACHINE_INPUTS = {
  create_webhook_endpoint: { url: 'http://127.0.0.1/wos' },
  create_notification_subscription: { endpoint: 'http://127.0.0.1/push' },
};

describe('operation registry', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let tools: any[];
  let openapi: any;

  beforeAll(async () => {
    // The worker creates the job queues (PostgreSQL): an operation starting a run needs its queue.
    h = await Harness.start({ env: { WOS_WEBHOOK_ALLOW_PRIVATE: 'true', WOS_WORKER: 'on' } });
    ws = await h.workspace();
    tools = [];
    let cursor: string | undefined;
    do {
      const listed = await h.mcp(ws.mcpToken, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: cursor ? { cursor } : {},
      });
      tools.push(...listed.body.result.tools);
      cursor = listed.body.result.nextCursor;
    } while (cursor);
    openapi = (await h.request('GET', '/openapi.json')).body;
  });
  afterAll(() => h.close());

  /**
   * A tool's schemas and hints: the input exactly the operation's strict schema, every object closed (maps
   * typed), portable (no type lists, $ref or bare booleans); the output the declared body with every field
   * typed; the hints its kind and declaration imply.
   */
  function expectToolSchemas(tool: any, op: (typeof registry.operations)[number], response: any) {
    expect(tool.inputSchema).toEqual(JSON.parse(JSON.stringify(op.input)));
    expect(openObjects(tool.inputSchema)).toEqual([]);
    expect(unportable(tool.inputSchema)).toEqual([]);
    expect(tool.outputSchema).toEqual({
      type: 'object',
      anyOf: [withoutAnnotations(JSON.parse(JSON.stringify(response))), { required: ['error'] }],
    });
    expect(unportable(tool.outputSchema)).toEqual([]);
    expect(untypedFields(tool.outputSchema.anyOf[0])).toEqual([]);
    // Hints: omitted ones take the MCP defaults (readOnly false, destructive true, idempotent false).
    const hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, ...tool.annotations };
    expect(hints.readOnlyHint).toBe(op.kind === 'read');
    expect(hints.openWorldHint).toBe(false);
    if (op.kind !== 'read') {
      if (op.kind === 'archive' || op.rest?.method === 'DELETE' || op.name.startsWith('delete_'))
        expect(hints.destructiveHint, `${op.name} destructive`).toBe(true);
      if (op.kind === 'update' || op.upsert) expect(hints.idempotentHint, `${op.name} idempotent`).toBe(true);
      expect(hints.idempotentHint).toBe(repeatsHarmlessly(op));
      // Setting an end state may overwrite or take away: destructive; any other write only adds.
      expect(hints.destructiveHint).toBe(repeatsHarmlessly(op));
    }
    // A create that redefines by a natural key says so (200 when it changed the record): it is an upsert.
    if (/200 when (changed|updated)/.test(op.description)) expect(op.upsert).toBe(true);
  }

  it.each(registry.operations.map((op) => [op.name, op] as const))(
    '%s is complete and strict',
    (_name, op) => {
      expect(op.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(MODULES).toContain(op.module);
      expect(op.scopes.length).toBeGreaterThan(0);
      for (const scope of op.scopes) expect(SCOPES).toContain(scope);
      expect(op.description.length).toBeGreaterThan(40);
      expect(op.summary.length).toBeGreaterThan(3);
      if (op.rest) expect(op.rest.path.startsWith('/v1/')).toBe(true);
      expect(() => op.validators()).not.toThrow();
      expect(openObjects(JSON.parse(JSON.stringify(op.input)))).toEqual([]);
      if (op.kind !== 'read') expect(op.input.properties).toHaveProperty('idempotency_key');
      if (op.deprecated) expect(registry.byName.get(op.deprecated.replacedBy)).toBeDefined();
      if (op.creates) expect(registry.recordTypes.get(op.creates)).toBeDefined();

      const response = registry.responses.get(op.name)!;
      expect(response.required).toContain('request_id');
      expect(response.additionalProperties).toBe(false);
      const tool = tools.find((t) => t.name === op.name);
      if (!op.rest) {
        // MCP-only (a workflow an agent runs): no route in OpenAPI, a tool whose _meta says so.
        expect(op.mcp).toBe(true);
        for (const methods of Object.values<any>(openapi.paths))
          for (const documented of Object.values<any>(methods))
            expect(documented.operationId).not.toBe(op.name);
        expect(tool).toBeDefined();
        expect(tool._meta.rest).toBeNull();
        expectToolSchemas(tool, op, response);
        const conforms = compileResponseSchema(tool.outputSchema);
        const check = compileResponseSchema(response);
        const example = exampleOf(response, { ids: () => undefined });
        expect(check(example), JSON.stringify(check.errors)).toBe(true);
        expect(conforms(example)).toBe(true);
        return;
      }

      // REST: the route exists in OpenAPI, served by this operation or shared with its replacement.
      const documented = openapi.paths[op.rest.path]?.[op.rest.method.toLowerCase()];
      expect(documented, `${op.rest.method} ${op.rest.path} in OpenAPI`).toBeDefined();
      const success = documented.responses[String(successStatus(op))];
      expect(Object.keys(success.content)).toEqual([op.responseMediaType ?? 'application/json']);
      if (!op.deprecated) expect(documented.operationId).toBe(op.name);

      // The declared response: a closed object with request_id; documented with a real schema and an example
      // that matches it; a create's idempotent replay (200) is documented with the same body.
      if (!op.deprecated && !op.responseMediaType) {
        const media = success.content['application/json'];
        expect(JSON.stringify(media.schema)).not.toBe('{}');
        const checkExample = compileResponseSchema(response);
        expect(checkExample(media.example), JSON.stringify(checkExample.errors)).toBe(true);
        if (op.kind === 'create') expect(documented.responses['200'].content).toEqual(success.content);
        const body = documented.requestBody?.content['application/json'];
        if (body) {
          const pathValues = Object.fromEntries(
            (documented.parameters ?? [])
              .filter((p: any) => p.in === 'path')
              .map((p: any) => [p.name, p.example]),
          );
          const restCompiled = op.restValidators ? op.restValidators() : op.validators();
          const example = structuredClone({ ...body.example, ...pathValues });
          expect(restCompiled.strict(example), JSON.stringify(restCompiled.strict.errors)).toBe(true);
        }
      }

      // MCP: every tool except REST-only reads (record lookups, feeds), with the same strict schema.
      if (!op.mcp) {
        // REST only: the record lookups (get_record serves agents) and browser ingest (agents do not ingest).
        expect(tool).toBeUndefined();
        expect(op.kind === 'read' || op.rest.browser !== undefined).toBe(true);
        return;
      }
      expect(tool).toBeDefined();
      expectToolSchemas(tool, op, response);
      expect(tool._meta).toEqual({
        module: op.module,
        scopes: op.scopes,
        ...(op.scopeMode === 'any' ? { scope_mode: 'any' } : {}),
        ...(op.deprecated
          ? {
              deprecated: true,
              replaced_by: op.deprecated.replacedBy,
              rest: `${op.rest.method} ${op.rest.path}`,
            }
          : {}),
        ...(op.dryRun ? { dry_run: true } : {}),
        ...(op.extension ? { extension: true } : {}),
      });
      // The documented response example conforms to the outputSchema too.
      if (!op.responseMediaType && !op.deprecated) {
        const conforms = compileResponseSchema(tool.outputSchema);
        expect(
          conforms(documented.responses[String(successStatus(op))].content['application/json'].example),
        ).toBe(true);
      }
    },
  );

  // Every create and run start, called twice with one key (its documented example, the records it names made
  // first in a workspace of its own): the second call replays the first's record or run.
  it.each(registry.operations.filter((op) => idempotencyScope(op)).map((op) => [op.name, op] as const))(
    '%s replays a retry with the same idempotency_key',
    async (_name, op) => {
      const inputs = new CreateInputs(h, registry, openapi, await h.workspace(op.name), MACHINE_INPUTS);
      const input = { ...(await inputs.input(op)), idempotency_key: `twice-${op.name}` };
      const first = await inputs.call(op, input);
      expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
      const again = await inputs.call(op, input);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(createdId(op, again.body, registry)).toBe(createdId(op, first.body, registry));
      if (!op.rest) return;
      expect(again.replayed).toBe(true);
      // REST: the Idempotency-Key header is the same key (declared on the route).
      const { idempotency_key: key, ...unkeyed } = input;
      const byHeader = await inputs.call(op, unkeyed, { 'idempotency-key': key });
      expect(byHeader.status, JSON.stringify(byHeader.body)).toBe(200);
      expect(createdId(op, byHeader.body, registry)).toBe(createdId(op, first.body, registry));
      const documented = openapi.paths[op.rest.path][op.rest.method.toLowerCase()];
      expect(documented.parameters).toContainEqual(
        expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
      );
    },
    30_000,
  );
  it('puts every tool in a profile, and names in profiles only modules and MCP tools that exist', () => {
    const held = new Set<string>(DISCOVERY_TOOLS);
    for (const name of PROFILE_NAMES) {
      const profile: ToolProfile = TOOL_PROFILES[name];
      expect(name).toMatch(/^[a-z][a-z_]*$/);
      for (const module of profile.modules ?? []) expect(MODULES).toContain(module);
      for (const tool of profile.tools ?? []) {
        expect(registry.byName.get(tool)?.mcp, `${name}: ${tool}`).toBe(true);
        held.add(tool);
      }
      for (const op of registry.operations)
        if (profile.modules?.includes(op.module as never)) held.add(op.name);
    }
    const outside = registry.operations.filter((op) => op.mcp && !held.has(op.name)).map((op) => op.name);
    expect(outside).toEqual([]);
  });

  it("has a lookup route for every record type, named like the resource's other routes", () => {
    for (const recordType of registry.recordTypes.values()) {
      const lookup = registry.byName.get(`get_${recordType.type}`)!;
      const param = /\{(\w+)\}$/.exec(lookup.rest!.path)![1]!;
      expect(lookup.rest).toEqual({ method: 'GET', path: `${recordType.collection}/{${param}}` });
      const others = registry.operations.filter((op) =>
        op.rest?.path.startsWith(`${recordType.collection}/{`),
      );
      for (const op of others)
        expect(op.rest!.path.startsWith(`${recordType.collection}/{${param}}`)).toBe(true);
      // The record type's schema is its resource: the lookup answers {<key>: <schema>}.
      expect(registry.responses.get(lookup.name)!.properties[recordType.key]).toBe(recordType.schema);
    }
  });

  it('documents one parameter name per path, and every success and error body with a schema', () => {
    const templates = new Map<string, string>();
    for (const path of Object.keys(openapi.paths)) {
      const template = path.replace(/\{\w+\}/g, '{}');
      expect(templates.get(template) ?? path, `${path} and ${templates.get(template)}`).toBe(path);
      templates.set(template, path);
    }
    const text = JSON.stringify(openapi);
    expect(text).not.toContain('patternProperties');
    for (const [path, methods] of Object.entries<any>(openapi.paths)) {
      for (const [method, operation] of Object.entries<any>(methods)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) >= 400) expect(response).toEqual({ $ref: '#/components/responses/Error' });
        }
        const limit = operation.parameters?.find((p: any) => p.name === 'limit');
        if (limit) expect(limit.schema.maximum, `${method} ${path} limit`).toBeUndefined();
        if (method === 'patch')
          expect(operation.requestBody.content['application/json'].schema.minProperties).toBe(1);
      }
    }
    expect(openapi.components.responses.Error.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
    const created = openapi.paths['/v1/contacts'].post.responses;
    expect(created['201'].content['application/json'].schema.properties.contact).toEqual({
      $ref: '#/components/schemas/Contact',
    });
    expect(openapi.components.schemas.Contact.properties.email).toBeDefined();
    expect(created['201'].content['application/json'].example.contact.name).toBe('Ada Lovelace');
    const preference = openapi.paths['/v1/notifications/preferences'].post.responses;
    expect(Object.keys(preference)).toEqual(expect.arrayContaining(['200', '201']));
  });

  it('has no $ref but JSON References into #/components: none in examples, none in text', () => {
    const strays: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${path}/${i}`);
      } else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && !(typeof value === 'string' && value.startsWith('#/components/'))) {
            strays.push(`${path}/$ref: ${JSON.stringify(value)}`);
          }
          walk(value, `${path}/${key}`);
        }
      }
    };
    walk(openapi, '#');
    expect(strays).toEqual([]);
    const text = JSON.stringify(openapi);
    expect(text.match(/\$ref/g)?.length).toBe(text.match(/"\$ref":"#\/components\//g)?.length);
  });

  it('rejects a registry with duplicate names or routes, and a create its key could not replay', () => {
    const crm = registry.modules.find((m) => m.name === 'crm')!;
    expect(() => buildRegistry([crm, crm])).toThrow(/Duplicate/);
    const { heavy: _heavy, ...createTask } = registry.byName.get('create_task')!;
    expect(() => defineOperation({ ...createTask, creates: undefined })).toThrow(
      /declares the record type it creates or the run it starts/,
    );
  });
});
