// The operations every run type offers, declared by the module that owns the type (the first ones arrive
// with BI and Data Agents): read one run, list runs newest first, cancel one. No run type exists in the
// product yet, so nothing here is in the registry until a module calls runOperations().
import { type TObject, Type } from '@sinclair/typebox';
import type { ModuleName, Scope } from './catalogue.ts';
import { defineOperation, type OperationDefinition } from './define-operation.ts';
import { listBody, pageInput, pageRequest } from './pagination.ts';
import { oneRecordBody, pageBody } from './response-schema.ts';
import { RUN_STATUSES, RunResource, toRunResource } from './run-resource.ts';
import { cancelRun, listRuns, requireRun } from './runs.ts';
import { Strict } from './schema.ts';

/** The response body of an operation answering one run under `key` (a `starts` operation, get, cancel). */
export function runBody(key = 'run'): TObject {
  return oneRecordBody(key, RunResource);
}

export interface RunOperationsSpec {
  module: ModuleName;
  /** The run type these operations see; runs of other types are not found. */
  runType: string;
  readScope: Scope;
  writeScope: Scope;
  /** REST collection, e.g. /v1/bi/runs: GET it (list), GET <collection>/{run_id}, POST .../{run_id}/cancel. */
  restCollection: string;
  /** Response key of one run (default run; a list answers under the plural). */
  key?: string;
  /** Tool names (default get_<type>_run, list_<type>_runs, cancel_<type>_run). */
  tools?: { get?: string; list?: string; cancel?: string };
  /** How the descriptions name a run (default: "<type> run"). */
  noun?: string;
  /** False for tools the specification lists (default true: an extension of this service). */
  extension?: boolean;
}

export function runOperations(spec: RunOperationsSpec): {
  get: OperationDefinition;
  list: OperationDefinition;
  cancel: OperationDefinition;
} {
  const key = spec.key ?? 'run';
  const noun = spec.noun ?? `${spec.runType.replace(/_/g, ' ')} run`;
  const runId = Type.String({ minLength: 1, maxLength: 255, description: `ID of the ${noun} (run_...).` });
  const common = { module: spec.module, extension: spec.extension ?? true, responseKey: key };

  const get = defineOperation({
    ...common,
    name: spec.tools?.get ?? `get_${spec.runType}_run`,
    scopes: [spec.readScope],
    kind: 'read',
    summary: `Get a ${noun}`,
    description:
      `Returns one ${noun}: status (queued, running, completed, failed, canceled), attempts, queued_at, ` +
      'started_at, finished_at, duration_ms, error (code and message) and result_ref. Poll it after the call ' +
      'that started the run answered 202.',
    input: Strict({ run_id: runId }),
    rest: { method: 'GET', path: `${spec.restCollection}/{run_id}` },
    response: runBody(key),
    handler: async (ctx, input) => ({
      body: { [key]: toRunResource(await requireRun(ctx.db, ctx.workspaceId, input.run_id, spec.runType)) },
    }),
  });

  const list = defineOperation({
    ...common,
    name: spec.tools?.list ?? `list_${spec.runType}_runs`,
    responseKey: `${key}s`,
    scopes: [spec.readScope],
    kind: 'read',
    summary: `List ${noun}s`,
    description: `Lists ${noun}s of the workspace, newest first, optionally by status. Paginated with cursor.`,
    input: Strict({
      status: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)))),
      ...pageInput,
    }),
    rest: { method: 'GET', path: spec.restCollection },
    response: pageBody(`${key}s`, RunResource),
    handler: async (ctx, input) => {
      const page = await listRuns(
        ctx.db,
        ctx.workspaceId,
        spec.runType,
        input,
        pageRequest(list.name, input),
      );
      return { body: listBody(`${key}s`, page) };
    },
  });

  const cancel = defineOperation({
    ...common,
    name: spec.tools?.cancel ?? `cancel_${spec.runType}_run`,
    scopes: [spec.writeScope],
    kind: 'action',
    // A second cancel changes nothing (409 once the run is canceled).
    idempotent: true,
    summary: `Cancel a ${noun}`,
    description:
      `Cancels a queued or running ${noun}: it is canceled at once and its work stops within seconds (writes ` +
      'of the canceled attempt are rolled back on PostgreSQL). A run that already finished answers 409 conflict. ' +
      'Writes an audit event.',
    input: Strict({ run_id: runId }),
    rest: { method: 'POST', path: `${spec.restCollection}/{run_id}/cancel` },
    response: runBody(key),
    handler: async (ctx, input) => {
      const run = await cancelRun(ctx.db, ctx.workspaceId, input.run_id, spec.runType, ctx.now);
      ctx.audit({ targetType: 'run', targetId: run.id, action: 'cancel', changedFields: ['status'] });
      return { body: { [key]: run } };
    },
  });

  return { get, list, cancel };
}
