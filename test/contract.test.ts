// One contract test over the registry: every operation is declared completely and served on both surfaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES, SCOPES } from '../src/core/catalogue.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const registry = buildRegistry();

/** Every object schema, at any depth, must reject unknown properties (false or a typed schema, never open). */
function openObjects(schema: any, path = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  if (schema.type === 'object') {
    const ap = schema.additionalProperties;
    if (ap === undefined || ap === true) found.push(path);
  }
  for (const [key, value] of Object.entries(schema)) {
    if (value && typeof value === 'object') found.push(...openObjects(value, `${path}.${key}`));
  }
  return found;
}

describe('operation registry', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let tools: any[];
  let openapi: any;

  beforeAll(async () => {
    h = await Harness.start();
    ws = await h.workspace();
    tools = [];
    let cursor: string | undefined;
    do {
      const listed = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor ? { cursor } : {} });
      tools.push(...listed.body.result.tools);
      cursor = listed.body.result.nextCursor;
    } while (cursor);
    openapi = (await h.request('GET', '/openapi.json')).body;
  });
  afterAll(() => h.close());

  it.each(registry.operations.map((op) => [op.name, op] as const))('%s is complete and strict', (_name, op) => {
    expect(op.name).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(MODULES).toContain(op.module);
    expect(op.scopes.length).toBeGreaterThan(0);
    for (const scope of op.scopes) expect(SCOPES).toContain(scope);
    expect(op.description.length).toBeGreaterThan(40);
    expect(op.summary.length).toBeGreaterThan(3);
    expect(op.rest.path.startsWith('/v1/')).toBe(true);
    expect(() => op.validators()).not.toThrow();
    expect(openObjects(JSON.parse(JSON.stringify(op.input)))).toEqual([]);
    if (op.kind !== 'read') expect(op.input.properties).toHaveProperty('idempotency_key');
    if (op.deprecated) expect(registry.byName.get(op.deprecated.replacedBy)).toBeDefined();
    if (op.creates) expect(registry.recordTypes.get(op.creates)).toBeDefined();

    // REST: the route exists in OpenAPI, served by this operation or shared with its replacement.
    const documented = openapi.paths[op.rest.path]?.[op.rest.method.toLowerCase()];
    expect(documented, `${op.rest.method} ${op.rest.path} in OpenAPI`).toBeDefined();
    const success = documented.responses[op.kind === 'create' ? '201' : '200'];
    expect(Object.keys(success.content)).toEqual([op.responseMediaType ?? 'application/json']);
    if (!op.deprecated) expect(documented.operationId).toBe(op.name);

    // MCP: every tool except REST-only reads (record lookups, feeds), with the same strict schema.
    const tool = tools.find((t) => t.name === op.name);
    if (!op.mcp) {
      expect(tool).toBeUndefined();
      expect(op.kind).toBe('read');
      return;
    }
    expect(tool).toBeDefined();
    expect(tool.inputSchema).toEqual(JSON.parse(JSON.stringify(op.input)));
    expect(tool.inputSchema.additionalProperties).toBe(false);
    expect(tool._meta).toMatchObject({
      module: op.module,
      scopes: op.scopes,
      rest: `${op.rest.method} ${op.rest.path}`,
      deprecated: Boolean(op.deprecated),
      replaced_by: op.deprecated?.replacedBy ?? null,
    });
    expect(tool.annotations.readOnlyHint).toBe(op.kind === 'read');
  });

  it('has a lookup route for every record type', () => {
    for (const recordType of registry.recordTypes.values()) {
      const lookup = registry.byName.get(`get_${recordType.type}`);
      expect(lookup?.rest).toEqual({ method: 'GET', path: `${recordType.collection}/{${recordType.type}_id}` });
    }
  });

  it('rejects a registry with duplicate names or routes', () => {
    const crm = registry.modules.find((m) => m.name === 'crm')!;
    expect(() => buildRegistry([crm, crm])).toThrow(/Duplicate/);
  });
});
