import type { TSchema } from '@sinclair/typebox';
import type { Kysely, Migration } from 'kysely';
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

/** What a module says about itself: its name and the scopes it owns (its area's read and write). */
export interface ModuleIdentity {
  name: string;
  scopes?: readonly string[];
}

/**
 * A module of the product, listed once in src/modules/module-list.ts. A listed module annotates its
 * definition with its own identity and tables, e.g. `ModuleDefinition<typeof crm, CrmTables>`: ModuleName,
 * Scope (catalogue.ts) and DB (db/tables.ts) are derived from the list, and the annotation is what keeps
 * those types from depending on the module's own operations. Modules the tests register use the default.
 */
export type ModuleDefinition<
  M extends ModuleIdentity = { name: ModuleName; scopes?: readonly Scope[] },
  Tables = unknown,
> = M & ModuleParts<Tables>;

export interface ModuleParts<Tables> {
  /** Type only, never set: the row types of the module's tables, merged into DB. */
  tables?: Tables;
  /**
   * The module's migrations (files in its migrations/ folder), by a name unique across the installation:
   * `NNNN-<module>-<change>` with the next free number of the whole tree (src/db/migrate.ts orders every
   * module's and the platform's by name, and an installation records the names it ran: never rename one).
   */
  migrations?: Record<string, Migration>;
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

/**
 * One module built from parts kept in folders of their own (data_agents: governed data, Agent Grid, vector
 * collections): their lists are concatenated and their startups run in order. Migration names stay unique
 * across the tree (src/db/migrate.ts refuses a number taken twice).
 */
export function combineParts<Tables>(...parts: ModuleParts<unknown>[]): ModuleParts<Tables> {
  const startups = parts.flatMap((p) => (p.startup ? [p.startup] : []));
  return {
    migrations: Object.assign({}, ...parts.map((p) => p.migrations ?? {})),
    operations: parts.flatMap((p) => p.operations),
    recordTypes: parts.flatMap((p) => p.recordTypes ?? []),
    summary: parts.flatMap((p) => p.summary ?? []),
    events: parts.flatMap((p) => p.events ?? []),
    eventConsumers: parts.flatMap((p) => p.eventConsumers ?? []),
    jobs: parts.flatMap((p) => p.jobs ?? []),
    periodicTasks: parts.flatMap((p) => p.periodicTasks ?? []),
    ...(startups.length
      ? {
          startup: async (env) => {
            for (const startup of startups) await startup(env);
          },
        }
      : {}),
  };
}
