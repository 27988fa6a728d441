import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { BrowserAccess } from './auth.ts';
import type { ModuleName, Scope } from './catalogue.ts';
import type { OperationContext } from './context.ts';
import type { ServiceError } from './errors.ts';
import { type CompiledSchema, compileSchema } from './schema.ts';

export type OperationKind = 'read' | 'create' | 'update' | 'archive' | 'action';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface OperationResult {
  /** The response body without request_id, e.g. {contact}. REST and MCP return it unchanged. */
  body: Record<string, unknown>;
  /** For creates: the ID the idempotency key binds to. */
  createdId?: string;
  status?: number;
  /**
   * REST-only reads may answer with another media type (an iCalendar feed): REST sends this payload
   * as-is instead of the JSON body.
   */
  raw?: { contentType: string; payload: string | Buffer };
  /**
   * Work that must not hold the call's transaction (an outbound HTTP request): runs after the commit, on
   * the root database, and its result replaces body. It must record its own failures, never throw.
   */
  afterCommit?: (db: Kysely<DB>) => Promise<Record<string, unknown>>;
  /**
   * Usage units of this call when they depend on the work done (a whole number, e.g. rows scanned per
   * thousand rounded up, documents embedded); absent: the operation's declared `units`.
   */
  units?: number;
}

export interface OperationSpec<P extends TProperties, H = undefined> {
  /** Tool name, stable across versions. */
  name: string;
  module: ModuleName;
  scopes: Scope[];
  /** 'all' (default): every scope is required. 'any': one is enough (get_workspace_summary). */
  scopeMode?: 'all' | 'any';
  kind: OperationKind;
  /** One line for OpenAPI and the reference. */
  summary: string;
  /** Written for an agent: what it does, when to use it, its side effects. */
  description: string;
  input: TObject<P>;
  /**
   * The REST route, or null for an MCP-only tool: a workflow an agent runs step by step (dispatching a job,
   * approving a decision), which the specification lists for MCP alone. It has no route and no OpenAPI entry;
   * tools/list shows `_meta.rest: null`.
   */
  rest: {
    method: HttpMethod;
    path: string;
    /**
     * For a deprecated operation sharing its replacement's route: serve the route when this matches the
     * raw REST input (e.g. a body with dry_run true previews as the deprecated tool does).
     */
    when?: (input: Record<string, unknown>) => boolean;
    /**
     * For an operation claiming a shared route with `when`: the body the route accepts when this operation
     * serves it, if wider than the tool's input (the replacement's fields). REST validates with it; MCP
     * keeps `input`. Gains idempotency_key and dry_run like `input`; OpenAPI merges it into the route body.
     */
    input?: TObject;
    /**
     * The route is called from web pages too (application events): it accepts the public keys of
     * BrowserAccess besides API keys, a JSON body sent as text/plain (sendBeacon), and answers CORS
     * preflights from the origins a key allows. No other route does any of these.
     */
    browser?: BrowserAccess;
    /**
     * A DELETE whose input is a JSON body rather than a query string (a list of IDs or a filter object do
     * not fit one): OpenAPI documents a request body. REST accepts a body on any DELETE.
     */
    body?: true;
  } | null;
  /**
   * False only for REST record lookups (GET /v1/<collection>/{id}) and browser ingest of application
   * events (agents do not ingest); every other tool is on both surfaces.
   */
  mcp?: boolean;
  deprecated?: { replacedBy: string };
  /** Accepts dry_run: the handler runs and its transaction is rolled back, so nothing is written. */
  dryRun?: boolean;
  /**
   * Reads only: the handler's queries may be long (a scan, an analytics query), so ctx.db runs them on the
   * heavy-read connections (off the main thread, read-only, with a time limit) instead of the database
   * every other call shares. A function decides per call (a text search is heavy, a plain page is not).
   */
  heavy?: boolean | ((input: Static<TObject<P>>) => boolean);
  /**
   * Writes only: a long read the write depends on (a BI query it then saves). It runs before the call's
   * transaction, on the heavy-read connections under the workspace's heavy slot and their time limit, so no
   * write lock is held while it runs; its result is the handler's third argument. It must only read (its
   * ctx.db is the heavy-read executor) and runs again on an idempotent replay's retry.
   */
  heavyRead?: (ctx: OperationContext, input: Static<TObject<P>>) => Promise<H>;
  /**
   * With heavyRead: records that the read failed once it ran (past its time limit, a database error), in a
   * transaction of its own that commits though the call still answers with the error (the handler never
   * runs). It gets the error as the call reports it and the read's duration, and writes only its own rows
   * (no audit, no events). A read that never started (no heavy slot) calls nothing.
   */
  heavyReadFailed?: (
    ctx: OperationContext,
    input: Static<TObject<P>>,
    failure: { error: ServiceError; durationMs: number },
  ) => Promise<void>;
  /**
   * Usage units a successful call consumes (a whole number, default 1): billed, recorded on its call event,
   * and what the billing stage requires to be left. Work-dependent costs are reported by the handler
   * (OperationResult.units) and replace this for that call.
   */
  units?: number;
  /**
   * Request example fields over those built from the fields' own examples (OpenAPI's request example; the
   * contract test calls every create with it): for rules the schema leaves to the handler, such as
   * create_note naming one of three records, so the documented example is a call that succeeds.
   */
  example?: Record<string, unknown>;
  /** For creates: the record type created, which scopes idempotency keys, replays and entitlements. */
  creates?: string;
  /**
   * The operation starts long-running work instead of finishing it: its handler calls ctx.startRun(), which
   * writes a run of this type (queued) and enqueues this job in the call's transaction. The call answers
   * 202 with the run under responseKey; an idempotency_key replays the same run (200). See runs.ts.
   */
  starts?: { runType: string; job: string };
  /**
   * Answers 202 Accepted: the call takes input that the service counts and aggregates rather than a record
   * it returns (application events: some may be reported rejected or duplicate in the body).
   */
  accepted?: boolean;
  /** Creates or updates by a natural key: 201 when it created the record, 200 when it changed one. */
  upsert?: boolean;
  /**
   * Creates and actions whose repeat with the same input changes nothing more (a replace by your own IDs,
   * a cancel, an action that answers its stored outcome again): MCP's idempotentHint. Updates, archives,
   * deletes and upserts are idempotent by what they are.
   */
  idempotent?: true;
  /** Not in the specification's tool reference: an extension of this service. */
  extension?: boolean;
  /** Key of the main resource in the response body ({contact}, {contacts}). */
  responseKey: string;
  /**
   * The response body without request_id, when it is not one record of the type whose key is responseKey
   * (or, for lists, a page of the type whose plural it is): actions, summaries, bodies with extra fields.
   * See response-schema.ts.
   */
  response?: TObject;
  /** For REST-only reads answering with `raw`: the media type OpenAPI documents (text/calendar). */
  responseMediaType?: string;
  handler: (ctx: OperationContext, input: Static<TObject<P>>, heavyRead: H) => Promise<OperationResult>;
  /**
   * For creates whose response carries more than the record (an upload URL, the updated parent): builds
   * the body of an idempotent replay from the record's current state. Default: {<key>: record}. For a
   * `starts` operation whose body is more than its run, the record is the run.
   */
  replay?: (ctx: OperationContext, record: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

export interface OperationDefinition
  extends Omit<OperationSpec<TProperties>, 'handler' | 'input' | 'heavy' | 'heavyRead' | 'heavyReadFailed'> {
  input: TObject;
  /** Whether this call's handler runs its queries on the heavy-read connections. */
  heavy: (input: Record<string, unknown>) => boolean;
  scopeMode: 'all' | 'any';
  units: number;
  mcp: boolean;
  dryRun: boolean;
  heavyRead?: (ctx: OperationContext, input: any) => Promise<unknown>;
  heavyReadFailed?: (
    ctx: OperationContext,
    input: any,
    failure: { error: ServiceError; durationMs: number },
  ) => Promise<void>;
  handler: (ctx: OperationContext, input: any, heavyRead?: any) => Promise<OperationResult>;
  validators(): CompiledSchema;
  /** Validators of rest.input, when declared: REST calls this operation serves are checked with them. */
  restValidators?: () => CompiledSchema;
}

const idempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Retry key: a repeat with the same key and input returns the first result. No personal data.',
});
const dryRun = Type.Boolean({ default: false, description: 'Preview the change without applying it.' });

/**
 * Declares one operation. Writes gain idempotency_key (creates honour it, updates and archives accept and
 * ignore it), dry-run operations gain dry_run; both surfaces are generated from the result.
 */
export function defineOperation<P extends TProperties, H = undefined>(
  spec: OperationSpec<P, H>,
): OperationDefinition {
  if (spec.heavy && spec.kind !== 'read') throw new Error(`${spec.name}: only reads can be heavy`);
  if (spec.heavyRead && spec.kind === 'read')
    throw new Error(`${spec.name}: a read is declared heavy instead`);
  if (spec.heavyReadFailed && !spec.heavyRead)
    throw new Error(`${spec.name}: heavyReadFailed without heavyRead`);
  if (spec.starts && spec.kind === 'read') throw new Error(`${spec.name}: a run is started by a write`);
  // Its idempotency key binds to that record or run, so a retry replays it (idempotency.ts).
  if (spec.kind === 'create' && !spec.creates && !spec.starts)
    throw new Error(`${spec.name}: a create declares the record type it creates or the run it starts`);
  if (spec.rest === null && spec.mcp === false) throw new Error(`${spec.name}: on neither surface`);
  if (spec.idempotent && spec.kind !== 'create' && spec.kind !== 'action')
    throw new Error(`${spec.name}: only creates and actions declare idempotent`);
  const units = spec.units ?? 1;
  if (!Number.isSafeInteger(units) || units < 0)
    throw new Error(`${spec.name}: units must be a whole number ≥ 0`);
  const heavy = spec.heavy;
  const withWriteFields = (schema: TObject): TObject => {
    const properties: TProperties = { ...schema.properties };
    if (spec.kind !== 'read') properties.idempotency_key = Type.Optional(idempotencyKey);
    if (spec.dryRun) properties.dry_run = Type.Optional(dryRun);
    return Type.Object(properties, {
      additionalProperties: false,
      ...(schema.description ? { description: schema.description } : {}),
    });
  };
  const input = withWriteFields(spec.input as TObject);
  const restInput = spec.rest?.input ? withWriteFields(spec.rest.input) : undefined;
  let compiled: CompiledSchema | undefined;
  let compiledRest: CompiledSchema | undefined;
  return {
    ...spec,
    input,
    rest: restInput && spec.rest ? { ...spec.rest, input: restInput } : spec.rest,
    ...(restInput ? { restValidators: () => (compiledRest ??= compileSchema(restInput)) } : {}),
    scopeMode: spec.scopeMode ?? 'all',
    mcp: spec.mcp ?? true,
    dryRun: spec.dryRun ?? false,
    units,
    heavy: typeof heavy === 'function' ? (heavy as OperationDefinition['heavy']) : () => heavy === true,
    heavyRead: spec.heavyRead as OperationDefinition['heavyRead'],
    heavyReadFailed: spec.heavyReadFailed as OperationDefinition['heavyReadFailed'],
    handler: spec.handler as OperationDefinition['handler'],
    validators: () => {
      compiled ??= compileSchema(input);
      return compiled;
    },
  };
}
