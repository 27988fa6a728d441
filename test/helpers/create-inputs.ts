// Valid inputs for any create of the registry, built generically: the documented request example (OpenAPI's
// body and path parameter examples; the tool schema's for MCP-only tools), with every example ID of a record
// type replaced by a real record of this workspace, itself made the same way by its own create.
import type { OperationDefinition } from '../../src/core/define-operation.ts';
import type { Registry } from '../../src/registry.ts';
import { requestExample } from '../../src/surfaces/openapi/examples.ts';
import { exampleIds } from '../../src/surfaces/openapi/openapi.ts';
import type { Harness, HttpResult, TestWorkspace } from './harness.ts';

type Json = Record<string, any>;

/** A create's answer, from REST or MCP alike. */
export interface Created {
  status: number;
  replayed: boolean;
  body: Json;
}

export class CreateInputs {
  /** Record type by the example ID its schema documents (con_01J... -> contact). */
  private readonly typeOfExample = new Map<string, string>();
  /** Records made for other creates' inputs, by type. */
  private readonly made = new Map<string, Promise<string>>();
  /** Types being made now: an example naming its own type would wait for itself. */
  private readonly making = new Set<string>();

  constructor(
    private readonly h: Harness,
    private readonly registry: Registry,
    private readonly openapi: Json,
    private readonly ws: TestWorkspace,
    /** Input fields by operation that this machine needs instead of the documented ones. */
    private readonly overrides: Record<string, Json> = {},
  ) {
    for (const recordType of registry.recordTypes.values()) {
      const example = (recordType.schema.properties.id as Json | undefined)?.examples?.[0];
      if (typeof example === 'string') this.typeOfExample.set(example, recordType.type);
    }
  }

  /** The documented example input of `op`, before its IDs are made real. */
  example(op: OperationDefinition): Json {
    if (!op.rest) return requestExample(op, op.input, { ids: exampleIds(this.registry) });
    const documented = this.openapi.paths[op.rest.path][op.rest.method.toLowerCase()];
    const path = Object.fromEntries(
      (documented.parameters ?? [])
        .filter((p: Json) => p.in === 'path')
        .map((p: Json) => [p.name, p.example]),
    );
    return structuredClone({ ...documented.requestBody?.content['application/json'].example, ...path });
  }

  /** A valid input of `op`: its example with every record it names made in this workspace. */
  async input(op: OperationDefinition): Promise<Json> {
    return (await this.realIds({ ...this.example(op), ...this.overrides[op.name] })) as Json;
  }

  private async realIds(value: unknown): Promise<unknown> {
    if (typeof value === 'string') {
      const type = this.typeOfExample.get(value);
      return type ? this.record(type) : value;
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) out.push(await this.realIds(item));
      return out;
    }
    if (value && typeof value === 'object') {
      const out: Json = {};
      for (const [key, item] of Object.entries(value)) out[key] = await this.realIds(item);
      return out;
    }
    return value;
  }

  /** The ID of a record of `type` in the workspace, made once by the type's create. */
  record(type: string): Promise<string> {
    let made = this.made.get(type);
    if (this.making.has(type)) throw new Error(`a ${type} example names a ${type} to make first`);
    if (!made) {
      this.making.add(type);
      // Its create, or a write whose answer carries it (run_bi_query saves the query it ran).
      const key = this.registry.recordTypes.get(type)!.key;
      const op =
        this.registry.operations.find((o) => o.creates === type && !o.deprecated) ??
        this.registry.operations.find(
          (o) => o.kind !== 'read' && !o.deprecated && key in this.registry.responses.get(o.name)!.properties,
        );
      if (!op) throw new Error(`no operation makes a ${type}`);
      made = this.input(op).then(async (input) => {
        const created = await this.call(op, input);
        if (created.status >= 300)
          throw new Error(`${op.name}: ${created.status} ${JSON.stringify(created.body)}`);
        return String(created.body[key].id);
      });
      made.finally(() => this.making.delete(type)).catch(() => {});
      this.made.set(type, made);
    }
    return made;
  }

  /** Calls `op` with `input` (and `headers` on REST): REST when it has a route, else MCP. */
  async call(op: OperationDefinition, input: Json, headers: Record<string, string> = {}): Promise<Created> {
    if (!op.rest) {
      const called = await this.h.callTool(this.ws.mcpToken, op.name, input);
      const error = called.result?.isError ? called.body?.error : undefined;
      return { status: error ? 400 : 200, replayed: false, body: called.body ?? called.http.body };
    }
    let url = op.rest.path;
    const body = { ...input };
    for (const [, name] of op.rest.path.matchAll(/\{(\w+)\}/g)) {
      url = url.replace(`{${name}}`, encodeURIComponent(String(body[name!])));
      delete body[name!];
    }
    const answer: HttpResult = await this.h.request(op.rest.method, url, {
      token: this.ws.apiKey,
      body,
      headers,
    });
    return {
      status: answer.status,
      replayed: answer.headers['idempotent-replayed'] === 'true',
      body: answer.body,
    };
  }
}

/** The ID a create's answer names: its record (or run) under the operation's response key. */
export function createdId(op: OperationDefinition, body: Json, registry: Registry): string {
  const key = op.creates && !op.starts ? registry.recordTypes.get(op.creates)!.key : op.responseKey;
  const id = body?.[key]?.id;
  if (typeof id !== 'string') throw new Error(`${op.name}: no ${key}.id in ${JSON.stringify(body)}`);
  return id;
}
