// The execution pipeline. Both surfaces call runOperation(); its stages run in this order:
//   1 authenticate  2 workspace  3 tool  4 module  5 scopes  6 rate limit  7 billing  8 validate
//   9 execute: a write's heavyRead (if declared) first, on the heavy-read connections under the heavy slot;
//      then writes run in one transaction
//        { idempotency -> handler -> audit + outbox + billing + call event }, then a nudge to the relay;
//      reads run on the database and queue their call event (usage recorder); heavy reads' handlers
//      query the heavy-read connections (src/db/heavy-reads.ts), never inside a transaction
//  10 response
// A failure at any stage after the workspace is known still records its call event (queued, unbilled). docs/architecture.md draws the same diagram.
import { performance } from 'node:perf_hooks';
import type { AuditEventsTable, CallEventsTable, OutboxEventsTable } from '../db/tables.ts';
import { auditRow } from './audit.ts';
import { authenticate, isModuleEnabled, loadPrincipal, type Principal } from './auth.ts';
import { callUnits, checkBilling, hasBillingLimits } from './billing.ts';
import { chargeUnits, holdEntitlement } from './billing-charge.ts';
import type { Call, CallOutcome, PipelineDeps } from './call.ts';
import { callEventRow, insertCallEvent } from './call-events.ts';
import type { Actor, AuditEntry, DomainEvent } from './context.ts';
import { retryConflicts } from './db-errors.ts';
import type { OperationResult } from './define-operation.ts';
import { asServiceError, fail, type ServiceError, validationFailed } from './errors.ts';
import {
  claimedBefore,
  claimKey,
  fingerprint,
  idempotencyScope,
  type KeyClaim,
  withKeyHeader,
} from './idempotency.ts';
import { RefusedBody } from './json-body.ts';
import { type CallScope, operationContext } from './operation-context.ts';
import { outboxRow } from './outbox.ts';
import { rateLimitHeaders } from './rate-limit.ts';
import { replayResult } from './replay.ts';
import { checkResponse, successStatus } from './response-schema.ts';
import { assertNesting, assertNoNul, toFieldErrors } from './schema.ts';
import { insertWriteEffects } from './write-effects.ts';
import { runWriteHeavyRead } from './write-heavy-read.ts';

class DryRunRollback extends Error {
  constructor(readonly result: OperationResult) {
    super('dry run');
  }
}

/** A replay skipped its heavy read, then found its key swept meanwhile: the call runs again, reading. */
class KeyForgotten extends Error {}

export async function runOperation(deps: PipelineDeps, call: Call): Promise<CallOutcome> {
  const started = performance.now();
  const headers: Record<string, string> = {};
  let principal: Principal | undefined;
  const db = deps.database.db;
  try {
    // 1-2. authenticate, workspace (one lookup: credential, its workspace, the surface's credential policy);
    // a worker call loads the credential it acts for, as it is now
    const worker = call.onBehalfOf;
    const publicKey = call.publicKey;
    principal =
      call.principal ??
      (worker
        ? await loadPrincipal(db, worker.workspaceId, worker.credentialId)
        : await deps.authThrottle.guard(
            call.clientAddress ?? '',
            publicKey ? `Bearer ${publicKey.key}` : call.authorization,
            () =>
              publicKey
                ? publicKey.access.authenticate(db, publicKey.key, publicKey.origin, deps.clock.now())
                : authenticate(
                    db,
                    call.authorization,
                    call.surface === 'mcp' ? 'mcp' : 'rest',
                    deps.principals,
                  ),
          ));
    const { workspace, credential } = principal;
    // A workspace header naming another workspace reveals nothing: the same answer as an unknown token.
    if (call.workspaceHeader !== undefined && call.workspaceHeader !== workspace.id) {
      throw fail('workspace_not_found');
    }

    // 3. tool: the name must be registered (and inside the connection's selection: ?profile=, ?modules=, ...)
    const op = call.operation;
    if (!op || (call.toolFilter && !call.toolFilter.has(op.name))) {
      throw fail('tool_not_found', {
        message: `No tool named "${call.toolName}" is registered; call tools/list.`,
      });
    }

    // 4. module enabled
    if (!isModuleEnabled(workspace, op.module)) {
      throw fail('module_not_enabled', {
        message: `The ${op.module} module is not enabled for this workspace.`,
      });
    }

    // 5. scopes
    const missing = op.scopes.filter((scope) => !credential.scopes.has(scope));
    if (op.scopeMode === 'all' ? missing.length > 0 : missing.length === op.scopes.length) {
      throw fail('missing_required_scope', {
        required_scope: missing[0],
        message:
          op.scopeMode === 'all'
            ? `This operation requires the scope ${missing[0]}.`
            : `This operation requires one of the scopes ${op.scopes.join(', ')}.`,
      });
    }

    // 6. rate limit: a call costs its declared usage units, known before it runs. A public key (a site's,
    // in web pages anyone can copy) counts toward its own limits instead, never the workspace's.
    if (publicKey)
      await publicKey.access.admit(deps.database.transaction, principal, call.input, deps.clock.now());
    else if (workspace.rateLimitPerMinute !== null) {
      const outcome = await deps.rateLimiter.consume(workspace.id, workspace.rateLimitPerMinute, op.units);
      Object.assign(headers, rateLimitHeaders(outcome));
      if (!outcome.allowed) throw fail('rate_limited', { retry_after_seconds: outcome.resetSeconds });
    }

    // 7. billing (a public key's calls are metered but consume no credit: refused while billing is paused)
    const now = deps.clock.now();
    const creates = op.creates ? deps.registry.recordTypes.get(op.creates) : undefined;
    await checkBilling(db, workspace, now, creates, op.units, publicKey ? 'unbilled' : 'billed');

    // 8. validate
    if (call.input instanceof RefusedBody) throw validationFailed(call.input.fieldErrors, call.input.message);
    let input = (call.input ?? {}) as Record<string, unknown>;
    // REST and MCP bodies were held to the nesting limit when parsed; a worker's input (a model's tool
    // arguments) was not. Both walks below are iterative or bounded by it.
    assertNesting(input);
    assertNoNul(input);
    const compiled = call.surface === 'rest' && op.restValidators ? op.restValidators() : op.validators();
    const validate = call.coerce ? compiled.coercing : compiled.strict;
    const isObject = typeof input === 'object' && !Array.isArray(input);
    if (isObject) input = withKeyHeader(op, input, call.idempotencyHeader);
    if (!isObject || !validate(input)) {
      throw validationFailed(
        Array.isArray(input) || typeof input !== 'object'
          ? [{ field: '(body)', message: 'must be a JSON object' }]
          : toFieldErrors(validate.errors),
      );
    }

    // 9. transaction: idempotency, handler, and every side effect of the call commit together
    const nowIso = now.toISOString();
    const actor: Actor = worker
      ? { type: 'system', credentialId: null, name: worker.actorName, onBehalfOf: credential.id }
      : { type: credential.kind, credentialId: credential.id, name: credential.name };
    const audits: AuditEntry[] = [];
    const events: DomainEvent[] = [];
    const dryRun = op.dryRun && input.dry_run === true;
    // A heavy read's handler queries the heavy-read connections (off the main thread, with a time limit).
    const heavy = op.heavy(input);
    // Every create and run start honours its idempotency key, scoped to the record type or the run type.
    const keyScope = idempotencyScope(op);
    const idempotencyKey = keyScope ? (input.idempotency_key as string | undefined) : undefined;
    const claim: KeyClaim | undefined = idempotencyKey
      ? {
          workspaceId: workspace.id,
          resourceType: keyScope!,
          key: idempotencyKey,
          operation: op.name,
          fingerprint: fingerprint(op.name, input),
          now: nowIso,
        }
      : undefined;
    let replayed = false;
    let heavyResult: unknown;
    let readSkipped = false;

    const callEvent = (status: number, units: number): CallEventsTable =>
      callEventRow(call, principal!, { occurredAt: nowIso, status, started, units });
    const scope: CallScope = { deps, call, op, principal, input, actor, now: nowIso, dryRun, audits, events };
    const context = (trx: typeof db, executor = heavy ? deps.database.heavy : trx) =>
      operationContext(scope, trx, executor);

    const execute = async (trx: typeof db): Promise<{ result: OperationResult; status: number }> => {
      const ctx = context(trx);

      let result: OperationResult | undefined;
      if (claim) {
        const outcome = await claimKey(trx, claim);
        if (outcome.state === 'replay') {
          result = await replayResult(trx, ctx, op, creates, outcome.resourceId);
          replayed = true;
        } else if (readSkipped) throw new KeyForgotten();
      }
      if (!result) {
        result = await op.handler(ctx, input, heavyResult);
      }
      if (dryRun) throw new DryRunRollback(result);
      if (op.kind !== 'read' && !replayed && audits.length === 0) {
        throw new Error(`Operation ${op.name} wrote without an audit event`);
      }
      // The key binds to what the call made: a create that names nothing could never be replayed.
      if (keyScope && !replayed && !result.createdId) {
        throw new Error(`Operation ${op.name} created nothing its idempotency key could replay`);
      }

      const status = replayed ? 200 : (result.status ?? successStatus(op));
      const write = {
        workspaceId: workspace.id,
        requestId: call.requestId,
        occurredAt: nowIso,
        actor,
        surface: call.surface,
        tool: op.name,
        defaultAction: op.kind,
        causedBy: worker?.causedBy,
      };
      const auditRows: AuditEventsTable[] = audits.map((entry) => auditRow(write, entry));
      const outboxRows: OutboxEventsTable[] = events.map((e) =>
        outboxRow(workspace.id, call.requestId, nowIso, e),
      );
      const units = callUnits(op, result);
      // The billing stage's checks again, now atomic with the charge: concurrent calls passed it together.
      if (creates && !replayed) await holdEntitlement(trx, workspace, creates);
      if (!publicKey) await chargeUnits(trx, workspace, { units, declared: op.units }, now);
      // Consumers (webhooks, notification rules) get the outbox events from the relay after the commit.
      // The transaction's last statement: on PostgreSQL its COMMIT goes with it, so nothing may follow.
      await insertWriteEffects(trx, {
        bind: claim && !replayed && result.createdId ? { ...claim, resourceId: result.createdId } : undefined,
        audits: auditRows,
        outbox: outboxRows,
        callEvent: callEvent(status, units),
      });
      return { result, status };
    };

    const recordBilledCall = (status: number, units: number) =>
      deps.database.transaction(async (trx) => {
        if (!publicKey) await chargeUnits(trx, workspace, { units, declared: op.units }, now);
        await insertCallEvent(trx, callEvent(status, units));
      });

    let executed: { result: OperationResult; status: number };
    try {
      if (op.kind === 'read' && (heavy || !hasBillingLimits(workspace))) {
        // A read writes nothing but its call event, which needs no transaction: it is queued. A heavy read
        // never runs inside a write transaction (on SQLite it would hold every writer for its duration):
        // with billing limits, its units and call event commit after it.
        // A workspace runs at most WOS_HEAVY_READS_PER_WORKSPACE heavy reads at once (heavy-slots.ts).
        const run = () => op.handler(context(db), input);
        const result = heavy ? await deps.database.heavySlots.run(workspace.id, run) : await run();
        const status = result.status ?? 200;
        const units = callUnits(op, result);
        if (hasBillingLimits(workspace)) await recordBilledCall(status, units);
        else deps.usage.record(callEvent(status, units));
        executed = { result, status };
      } else {
        // 9a. a write's heavy read: before the transaction (write-heavy-read.ts). A key a committed call
        // claimed replays what it made without reading again (the read might fail now, and costs its slot).
        for (let pass = 1; ; pass++) {
          readSkipped = Boolean(op.heavyRead && claim && pass === 1 && (await claimedBefore(db, claim)));
          if (op.heavyRead && !readSkipped) {
            heavyResult = await runWriteHeavyRead(deps, call, op, workspace.id, input, context);
          }
          try {
            // A transaction that lost to concurrent writes (a deadlock, a serialization failure) rolled
            // back whole: it runs again from scratch, with nothing of the failed attempt's audits or events.
            executed = await retryConflicts(() => {
              audits.length = 0;
              events.length = 0;
              replayed = false;
              return deps.database.transaction(execute);
            });
            break;
          } catch (thrown) {
            if (!(thrown instanceof KeyForgotten) || pass > 1) throw thrown;
          }
        }
        if (events.length) deps.relay.nudge();
      }
    } catch (thrown) {
      if (!(thrown instanceof DryRunRollback)) throw thrown;
      // The preview's writes were rolled back; its usage event is still recorded.
      await recordBilledCall(200, callUnits(op, thrown.result));
      executed = {
        result: { ...thrown.result, body: { ...thrown.result.body, dry_run: true } },
        status: 200,
      };
    }

    if (executed.result.afterCommit) {
      executed = { ...executed, result: { ...executed.result, body: await executed.result.afterCommit(db) } };
    }

    // 10. response (checked against the declared schema when WOS_VALIDATE_RESPONSES is on)
    if (replayed) headers['idempotent-replayed'] = 'true';
    const body = { ...executed.result.body, request_id: call.requestId };
    if (deps.config.validateResponses && !executed.result.raw) {
      checkResponse(op, deps.registry.responses.get(op.name)!, body);
    }
    return {
      ok: true,
      status: executed.status,
      body,
      headers,
      ...(executed.result.raw ? { raw: executed.result.raw } : {}),
    };
  } catch (thrown) {
    const error = asServiceError(thrown);
    if (error.code === 'internal_error') {
      deps.logger.error({ err: thrown, request_id: call.requestId, route: call.route }, 'operation failed');
    }
    if (principal) recordFailedCall(deps, call, principal, error, started, call.operation?.units ?? 1);
    return { ok: false, error, headers };
  }
}

/** The call event of a failed call: the operation's declared units, unbilled, queued. */
function recordFailedCall(
  deps: PipelineDeps,
  call: Call,
  principal: Principal,
  error: ServiceError,
  started: number,
  units: number,
): void {
  const occurredAt = deps.clock.now().toISOString();
  deps.usage.record(
    callEventRow(call, principal, { occurredAt, status: error.status, error: error.code, started, units }),
  );
}
