import type { TSchema } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB, OutboxEventsTable } from '../db/tables.ts';
import type { JobDefinition, JobEnv, PeriodicTask } from '../jobs/types.ts';
import type { ModuleName, Scope } from './catalogue.ts';
import type { Clock } from './clock.ts';
import type { OperationDefinition } from './define-operation.ts';
import type { RecordType } from './record-types.ts';

/** A section of get_workspace_summary, shown when the credential holds its scope and the module is on. */
export interface SummarySection {
  module: ModuleName;
  scope: Scope;
  /** Key of the section in the summary, e.g. crm. */
  key: string;
  /** One query per module: the summary must stay fast on large workspaces. */
  compute(db: Kysely<DB>, workspaceId: string, now: string): Promise<Record<string, unknown>>;
}

/** A domain event name a module emits, for the integration event catalogue. Undeclared names fail loudly. */
export interface DomainEventType {
  name: string;
  description: string;
  /** JSON Schema of the event's data, where it helps a subscriber. */
  schema?: TSchema;
}

/**
 * Handed outbox events by the relay (src/core/outbox-relay.ts), after the writes that emitted them have
 * committed: webhook deliveries, notification rules. Delivery is at least once; the effect is once per
 * event ID, because what `consume` writes commits together with the relay's record that it consumed them.
 */
export interface EventConsumer {
  /** Unique: the relay records progress under it. */
  name: string;
  /**
   * The event names it wants ('*' = every name): a fixed list, or the names it wants from a workspace
   * right now (asked once per workspace and relay batch, so one cheap query). Other events never reach it.
   */
  subscribes: readonly string[] | ((db: Kysely<DB>, workspaceId: string) => Promise<readonly string[]>);
  /**
   * Handles events of one workspace, oldest first, inside the relay's transaction. Throwing rolls back
   * what it wrote; the events come again (it is then held back for that workspace, keeping the order).
   */
  consume(db: Kysely<DB>, workspaceId: string, events: OutboxEventsTable[], clock: Clock): Promise<void>;
}

export interface ModuleDefinition {
  name: ModuleName;
  operations: OperationDefinition[];
  recordTypes?: RecordType[];
  summary?: SummarySection[];
  events?: DomainEventType[];
  eventConsumers?: EventConsumer[];
  /** Background job handlers (src/jobs): run by the worker of every node that has it on. */
  jobs?: JobDefinition[];
  /** Idempotent work each worker tick (finding due rows, enqueueing keyed jobs). */
  periodicTasks?: PeriodicTask[];
  /** Runs once when a service process starts, before it serves requests (e.g. removing what a crash left). */
  startup?: (env: Omit<JobEnv, 'queue'>) => Promise<void>;
}
