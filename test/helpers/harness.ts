// Test harness: the real app on a fresh database (a temp SQLite file, or a PostgreSQL schema of its own when
// WOS_DATABASE_URL is set), with helpers to call REST, MCP and the operator API.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { ensureOperatorToken } from '../../src/admin/bootstrap.ts';
import { buildApp, type Service } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { SCOPES } from '../../src/core/catalogue.ts';
import type { Clock } from '../../src/core/clock.ts';
import type { DB } from '../../src/db/tables.ts';
import type { Registry } from '../../src/registry.ts';
import { toMcpTool } from '../../src/surfaces/mcp/mcp-tools.ts';

export const OPERATOR_TOKEN = 'wos_op_test-operator-token-0123456789abcdefghijklmnopq';
export const ALL_SCOPES = [...SCOPES];

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

export interface TestWorkspace {
  id: string;
  apiKey: string;
  mcpToken: string;
}

export class MutableClock implements Clock {
  constructor(public current = new Date('2026-11-21T12:00:00.000Z')) {}
  now() {
    return new Date(this.current);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export const usingPostgres = Boolean(process.env.WOS_DATABASE_URL);

// The official MCP SDK's validator, as its client checks a tool result against the listed outputSchema.
const sdkValidator = new AjvJsonSchemaValidator();
const outputValidators = new Map<string, (value: unknown) => { valid: boolean; errorMessage?: string }>();

/**
 * Every successful tools/call of every test is checked against the outputSchema tools/list gives its tool,
 * with the validator the official SDK client uses (mcp-sdk.test.ts shows that client rejecting a mismatch).
 */
function checkStructuredContent(registry: Registry, message: any, response: HttpResult): void {
  const result = response.body?.result;
  if (message?.method !== 'tools/call' || !result?.structuredContent || result.isError) return;
  const op = registry.byName.get(String(message.params?.name));
  if (!op) return;
  let validate = outputValidators.get(op.name);
  if (!validate) {
    validate = sdkValidator.getValidator(toMcpTool(op, registry.responses.get(op.name)!).outputSchema);
    outputValidators.set(op.name, validate);
  }
  const verdict = validate(result.structuredContent);
  if (!verdict.valid)
    throw new Error(`${op.name}: structuredContent fails its outputSchema: ${verdict.errorMessage}`);
}

/** A database location of its own: a temp directory for SQLite, a fresh schema for PostgreSQL. */
export async function isolatedDatabase(): Promise<{
  env: Record<string, string>;
  drop: () => Promise<void>;
}> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-test-'));
  if (!usingPostgres) {
    return {
      env: { WOS_DATA_DIR: dataDir },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const url = process.env.WOS_DATABASE_URL!;
  const schema = `wos_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect(); // fails the run, never skips it, when PostgreSQL is unreachable
  await client.query(`create schema ${schema}`);
  await client.end();
  return {
    env: { WOS_DATA_DIR: dataDir, WOS_DATABASE_URL: url, WOS_DATABASE_SCHEMA: schema },
    drop: async () => {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`drop schema if exists ${schema} cascade`);
      // The job queue (pg-boss) keeps its tables in a schema derived from the service's (src/jobs).
      await dropper.query(`drop schema if exists ${schema}_jobs cascade`);
      await dropper.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export class Harness {
  private constructor(
    readonly service: Service,
    readonly config: Config,
    readonly clock: MutableClock,
    private readonly dropDatabase: () => Promise<void>,
  ) {}

  static async start(
    options: {
      clock?: MutableClock;
      env?: Record<string, string>;
      registry?: Registry;
      /** The app's logger (a test reading its lines); else one at WOS_LOG_LEVEL. */
      logger?: Logger;
    } = {},
  ): Promise<Harness> {
    const database = await isolatedDatabase();
    const config = loadConfig({
      ...database.env,
      WOS_ADMIN_TOKEN: OPERATOR_TOKEN,
      WOS_LOG_LEVEL: process.env.WOS_TEST_LOG_LEVEL ?? 'silent',
      WOS_PUBLIC_URL: 'http://wos.test',
      // The background worker runs only in tests that ask for it (WOS_WORKER: 'on').
      WOS_WORKER: 'off',
      // Every success body of every test is checked against its declared schema.
      WOS_VALIDATE_RESPONSES: 'on',
      ...options.env,
    });
    const clock = options.clock ?? new MutableClock();
    const service = await buildApp({ config, clock, registry: options.registry, logger: options.logger });
    await ensureOperatorToken(service.deps.database.db, config);
    return new Harness(service, config, clock, database.drop);
  }

  /** The background worker, when started with WOS_WORKER: 'on'. */
  get worker() {
    return this.service.worker;
  }

  /**
   * Stops this service (as a crash or deploy would: the worker stops, the database stays) and starts a new
   * one over the same database, clock and registry, with config overrides. Use the returned harness from then on.
   */
  async restart(overrides: Partial<Config> = {}): Promise<Harness> {
    await this.service.app.close();
    await this.service.deps.database.close().catch(() => {});
    const config = { ...this.config, ...overrides };
    const service = await buildApp({ config, clock: this.clock, registry: this.service.deps.registry });
    await ensureOperatorToken(service.deps.database.db, config);
    return new Harness(service, config, this.clock, this.dropDatabase);
  }

  /**
   * A second service over the same database, clock and registry (another node of a deployment), with config
   * overrides. Close it with `service.app.close()`; the database stays with this harness.
   */
  async startSibling(overrides: Partial<Config> = {}): Promise<Service> {
    return buildApp({
      config: { ...this.config, ...overrides },
      clock: this.clock,
      registry: this.service.deps.registry,
    });
  }

  /**
   * One outbox relay pass, now: committed events reach their consumers (webhook deliveries, notification
   * rules) without the worker or its timers. Resolves with the number of events published.
   */
  relay(): Promise<number> {
    return this.service.deps.relay.pass();
  }

  /** Writes queued call events (reads, failed calls) so tests can read them from the database. */
  flushUsage(): Promise<void> {
    return this.service.deps.usage.flush();
  }

  get db(): Kysely<DB> {
    return this.service.deps.database.db;
  }

  async close(): Promise<void> {
    await this.service.app.close();
    await this.service.deps.database.close().catch(() => {});
    await this.dropDatabase();
  }

  async request(
    method: string,
    url: string,
    options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpResult> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const response = await this.service.app.inject({ method: method as 'GET', url, headers, payload });
    let body: any;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    return {
      status: response.statusCode,
      headers: response.headers as HttpResult['headers'],
      body,
      text: response.body,
    };
  }

  admin(method: string, url: string, body?: unknown) {
    return this.request(method, `/admin/v1${url}`, { token: OPERATOR_TOKEN, body });
  }

  async mcp(
    token: string | undefined,
    message: unknown,
    options: { query?: string; headers?: Record<string, string> } = {},
  ) {
    const response = await this.request('POST', `/mcp${options.query ?? ''}`, {
      token,
      body: message,
      headers: options.headers,
    });
    checkStructuredContent(this.service.deps.registry, message, response);
    return response;
  }

  /** tools/call through /mcp; returns the tool result (structuredContent and isError) and the HTTP result. */
  async callTool(token: string, name: string, args: unknown, query?: string) {
    const response = await this.mcp(
      token,
      { jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name, arguments: args } },
      { query },
    );
    return { http: response, result: response.body?.result, body: response.body?.result?.structuredContent };
  }

  async createCredential(workspaceId: string, kind: 'api_key' | 'mcp_token', scopes: string[] = ALL_SCOPES) {
    const response = await this.admin('POST', `/workspaces/${workspaceId}/credentials`, {
      kind,
      name: `${kind} for tests`,
      scopes,
    });
    if (response.status !== 201) throw new Error(`credential: ${response.status} ${response.text}`);
    return response.body as { credential: { id: string }; token: string };
  }

  /** A new workspace with an all-scope API key and MCP token. */
  async workspace(name = 'Test workspace', modules?: string[]): Promise<TestWorkspace> {
    const created = await this.admin('POST', '/workspaces', modules ? { name, modules } : { name });
    if (created.status !== 201) throw new Error(`workspace: ${created.status} ${created.text}`);
    const id = created.body.workspace.id as string;
    const apiKey = (await this.createCredential(id, 'api_key')).token;
    const mcpToken = (await this.createCredential(id, 'mcp_token')).token;
    return { id, apiKey, mcpToken };
  }
}
