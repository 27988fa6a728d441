// The OperationContext a handler gets (src/core/context.ts): the call's identity, clock and connections, and
// the ways it may act. Audit entries and domain events are collected here for the pipeline to commit with the
// write; jobs and runs are enqueued through the call's transaction.
import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { Principal } from './auth.ts';
import { isModuleEnabled } from './auth.ts';
import type { Call, PipelineDeps } from './call.ts';
import type { Actor, AuditEntry, DomainEvent, OperationContext } from './context.ts';
import type { OperationDefinition } from './define-operation.ts';
import { fail, notFound } from './errors.ts';
import { loadRecord } from './record-types.ts';
import { checkEventData } from './response-schema.ts';
import { runOnBehalf } from './run-on-behalf.ts';
import { startOperationRun } from './runs.ts';

/** One call as the pipeline knows it once validated: what every context of that call shares. */
export interface CallScope {
  deps: PipelineDeps;
  call: Call;
  op: OperationDefinition;
  principal: Principal;
  input: Record<string, unknown>;
  actor: Actor;
  now: string;
  dryRun: boolean;
  /** Filled by ctx.audit and ctx.emit; the pipeline turns them into rows of the write's transaction. */
  audits: AuditEntry[];
  events: DomainEvent[];
}

/** The context of one call: `trx` takes its jobs and runs, `executor` (trx, or the heavy reads) its queries. */
export function operationContext(scope: CallScope, trx: Kysely<DB>, executor: Kysely<DB>): OperationContext {
  const { deps, call, op, principal, input, actor, now, audits, events } = scope;
  const { workspace, credential } = principal;
  // Methods, not arrow properties: the service runs through tsx, which names every function assigned to a
  // property with a defineProperty call, on each call (about 2 µs apiece under load).
  return {
    db: executor,
    dialect: deps.database.dialect,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    requestId: call.requestId,
    actor,
    surface: call.surface,
    operation: op.name,
    clock: deps.clock,
    now,
    dryRun: scope.dryRun,
    mcpSession: call.mcpSession ?? null,
    userAgent: call.userAgent ?? null,
    config: deps.config,
    scopes: credential.scopes,
    eventTypes: deps.registry.eventTypes,
    enabledModule(module) {
      return isModuleEnabled(workspace, module);
    },
    flushUsage() {
      return deps.usage.flush();
    },
    audit(entry) {
      audits.push(entry);
    },
    emit(event) {
      const eventType = deps.registry.eventTypes.get(event.name);
      if (!eventType) throw new Error(`Undeclared domain event ${event.name}`);
      if (deps.config.validateResponses) checkEventData(op, eventType, event.data);
      events.push(event);
    },
    async requireRecord(type, id) {
      const recordType = deps.registry.recordTypes.get(type);
      // Naming another module's record (a task's related contact, a ticket's requester) confirms that it
      // exists: that takes the scope which reads it. Within its own module the operation's scopes suffice.
      if (recordType && recordType.module !== op.module && !credential.scopes.has(recordType.readScope)) {
        throw fail('missing_required_scope', {
          required_scope: recordType.readScope,
          message: `Referring to a ${recordType.type.replace(/_/g, ' ')} requires the scope ${recordType.readScope}.`,
        });
      }
      const record =
        recordType && (await loadRecord(executor, workspace.id, recordType, id, now, deps.config.publicUrl));
      if (!record) throw notFound(type.replace(/_/g, ' '));
      return record;
    },
    enqueue(name, payload, options) {
      return deps.jobs.enqueue(name, payload, { ...options, db: trx });
    },
    startRun(options = {}) {
      // The run records the call that started it.
      const started = {
        workspaceId: workspace.id,
        requestId: call.requestId,
        credentialId: credential.id,
        surface: call.surface,
        now,
        input,
        audit(entry: AuditEntry) {
          audits.push(entry);
        },
      };
      return startOperationRun(trx, deps.jobs, op, started, options);
    },
    operationNamed(name) {
      return deps.registry.byName.get(name);
    },
    hasRecordType(type) {
      return deps.registry.recordTypes.has(type);
    },
    callOnBehalf(tool, toolInput, options = {}) {
      const onBehalf = { workspaceId: workspace.id, credentialId: credential.id, tool, input: toolInput };
      return runOnBehalf(deps, { ...onBehalf, ...options });
    },
  };
}
