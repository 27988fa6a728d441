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
 * Runs inside the transaction of every write that emitted domain events, after they are stored in the
 * outbox (webhook deliveries, notification rules): what it writes commits or rolls back with the write.
 */
export interface EventConsumer {
  name: string;
  consume(db: Kysely<DB>, events: OutboxEventsTable[], clock: Clock): Promise<void>;
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
