import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/tables.ts';
import type { EnqueueOptions } from '../jobs/types.ts';
import type { CallOutcome } from './call.ts';
import type { Clock } from './clock.ts';
import type { OperationDefinition } from './define-operation.ts';
import type { DomainEventType } from './module.ts';
import type { Run } from './run-resource.ts';
import type { StartRunOptions } from './runs.ts';

export type Surface = 'rest' | 'mcp' | 'admin' | 'cli' | 'system' | 'worker';

export interface Actor {
  type: 'api_key' | 'mcp_token' | 'site_key' | 'operator' | 'system';
  credentialId: string | null;
  name: string;
  /** A system actor calling on a caller's behalf (surface worker): that caller's credential ID. */
  onBehalfOf?: string;
}

export interface AuditEntry {
  targetType: string;
  targetId: string;
  /** Defaults to the operation's kind (create, update, archive, ...). */
  action?: string;
  /** Names only: previous values are never stored. */
  changedFields?: string[];
  status?: string;
}

export interface DomainEvent {
  /** Dotted name such as contact.created or deal.stage_changed. */
  name: string;
  targetType?: string;
  targetId?: string;
  /** The record's state after the change. */
  data: unknown;
}

/**
 * Everything a handler may use. Its db is the call's transaction (for a heavy read: the read-only heavy-read
 * connections), already scoped to nothing: pass workspaceId.
 */
export interface OperationContext {
  db: Kysely<DB>;
  dialect: Dialect;
  workspaceId: string;
  workspaceName: string;
  requestId: string;
  actor: Actor;
  surface: Surface;
  operation: string;
  clock: Clock;
  /** One timestamp for the whole call, so created_at equals updated_at on a new record. */
  now: string;
  dryRun: boolean;
  /** The MCP session of the call (Mcp-Session-Id), null without one: enable_toolset changes it. */
  mcpSession: { id: string; profiles: readonly string[] } | null;
  /** The caller's User-Agent header (REST), for records that keep it (application events). */
  userAgent: string | null;
  /** The service configuration (public URL, data directory, upload limit). */
  config: Config;
  scopes: ReadonlySet<string>;
  /** Every domain event type the modules declare (the integration event catalogue). */
  eventTypes: ReadonlyMap<string, DomainEventType>;
  enabledModule(module: string): boolean;
  /** Writes queued call events (of reads and failed calls) before a handler reads usage data. */
  flushUsage(): Promise<void>;
  audit(entry: AuditEntry): void;
  emit(event: DomainEvent): void;
  /** Loads a record of a registered type in this workspace; throws resource_not_found when absent. */
  requireRecord(type: string, id: string): Promise<Record<string, unknown>>;
  /** Enqueues a job through this call's transaction (writes): it exists exactly when the call commits. */
  enqueue(name: string, payload: unknown, options?: Omit<EnqueueOptions, 'db'>): Promise<string | null>;
  /**
   * For an operation declared with `starts`: writes its run (queued) and enqueues its job in this call's
   * transaction, and records the audit event. Return the run under responseKey, with createdId: run.id.
   */
  startRun(options?: StartRunOptions): Promise<Run>;
  /** A registered operation by tool name (records that name a tool to call later validate it with this). */
  operationNamed(name: string): OperationDefinition | undefined;
  /** Whether a record type of this name is registered (typed references name one). */
  hasRecordType(type: string): boolean;
  /**
   * Calls a registry tool through the pipeline with this call's credential (run-on-behalf.ts: its scopes
   * and module enablement are checked as for its own call; audited as system on behalf of it). It opens a
   * transaction of its own: call it from afterCommit work, never inside the handler (SQLite has one writer).
   */
  callOnBehalf(
    tool: string,
    input: Record<string, unknown>,
    options?: { idempotencyKey?: string; actorName?: string; requestId?: string },
  ): Promise<CallOutcome>;
}
