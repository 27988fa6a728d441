// Scheduled artifacts: a saved query (later a report, export or insight view) refreshed on a cadence by the
// scheduler (scheduler.ts), on behalf of the credential that created the schedule. Updates and archives go
// through update_bi_object / archive_bi_object, which call updateScheduledArtifact / archiveScheduledArtifact.
import { type Static, Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation, type OperationDefinition } from '../../../core/define-operation.ts';
import { fail, notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType, type RecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import {
  cadenceUses,
  nextOccurrence,
  type RuleInput,
  ruleFrom,
  type ScheduleRule,
} from './schedule-rules.ts';
import {
  ruleFields,
  type ScheduledArtifact,
  ScheduledArtifactSchema,
  TargetInput,
} from './schedule-schemas.ts';
import {
  dayOfMonthOf,
  findSchedule,
  insertSchedule,
  listSchedules,
  ruleColumns,
  type ScheduleRow,
  toScheduledArtifact,
  updateScheduleRow,
} from './schedule-store.ts';
import type { BiScheduledArtifactsTable, ScheduleStatus, ScheduleTargetType } from './schedule-tables.ts';
import { SCHEDULE_TARGETS } from './schedule-targets.ts';

const RECORD = 'bi_scheduled_artifact';
/** Live schedules a workspace may hold unless the operator's entitlement bi_scheduled_artifact says otherwise. */
export const DEFAULT_SCHEDULE_CAP = 200;

export const scheduledArtifactRecord = defineRecordType({
  type: RECORD,
  module: 'product_analytics_bi',
  table: 'bi_scheduled_artifacts',
  collection: '/v1/bi/scheduled-artifacts',
  key: 'scheduled_artifact',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  // Every live schedule is work the scheduler does for the workspace each period: capped by default.
  defaultMaximum: DEFAULT_SCHEDULE_CAP,
  load: (db, workspaceId, id) => findSchedule(db, workspaceId, id),
  schema: ScheduledArtifactSchema,
  toResource: toScheduledArtifact,
});

const name = Type.String({ minLength: 1, maxLength: 200, description: 'What the schedule is for.' });

/** The target must be schedulable and exist, live, in this workspace (else resource_not_found). */
async function checkTarget(ctx: OperationContext, type: ScheduleTargetType, id: string): Promise<void> {
  const target = SCHEDULE_TARGETS[type];
  if (!target) {
    const schedulable = Object.keys(SCHEDULE_TARGETS).join(', ');
    throw validationFailed([
      {
        field: 'target.type',
        message: `no ${type} can be scheduled yet; schedulable targets: ${schedulable}`,
      },
    ]);
  }
  await ctx.requireRecord(target.recordType, id);
}

/** The next run of an active schedule from now; paused ones have none. */
const nextRunAt = (rule: ScheduleRule, status: ScheduleStatus, now: string) =>
  status === 'active' ? new Date(nextOccurrence(rule, Date.parse(now))).toISOString() : null;

export const createScheduledArtifact = defineOperation({
  name: 'create_bi_scheduled_artifact',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  creates: RECORD,
  extension: true,
  summary: 'Schedule a BI artifact refresh',
  description:
    'Schedules a saved query (target {type: query, id}) to refresh hourly (at minute), daily (hour, minute), ' +
    'weekly (weekday, hour, minute) or monthly (day_of_month 1-31 or last, hour, minute) in an IANA ' +
    'timezone (default UTC). Each occurrence starts one BI run (trigger schedule) on behalf of the calling ' +
    'credential: revoking it makes later runs fail with the reason. Answers the schedule with next_run_at. ' +
    'A workspace holds at most 200 live schedules unless the operator sets the entitlement ' +
    'bi_scheduled_artifact (billing_limit_exceeded: archive one first).',
  input: Strict({
    name,
    target: TargetInput,
    cadence: ruleFields.cadence,
    minute: Type.Optional(ruleFields.minute),
    hour: Type.Optional(ruleFields.hour),
    weekday: Type.Optional(ruleFields.weekday),
    day_of_month: Type.Optional(ruleFields.day_of_month),
    timezone: Type.Optional(ruleFields.timezone),
    status: Type.Optional(ruleFields.status),
  }),
  rest: { method: 'POST', path: '/v1/bi/scheduled-artifacts' },
  responseKey: 'scheduled_artifact',
  handler: async (ctx, input) => {
    const rule = ruleFrom(input as RuleInput);
    await checkTarget(ctx, input.target.type, input.target.id);
    const owner = ctx.actor.credentialId ?? ctx.actor.onBehalfOf;
    if (!owner) throw fail('credential_not_allowed', { message: 'A schedule needs a credential to run as.' });
    const status = input.status ?? 'active';
    const row: BiScheduledArtifactsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('bisch'),
      name: input.name,
      target_type: input.target.type,
      target_id: input.target.id,
      ...ruleColumns(rule),
      status,
      next_run_at: nextRunAt(rule, status, ctx.now),
      last_run_at: null,
      last_run_id: null,
      owner_credential_id: owner,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await insertSchedule(ctx.db, row);
    const scheduled = toScheduledArtifact(neverRun(row));
    ctx.audit({ targetType: RECORD, targetId: row.id, changedFields: inputFields(input) });
    return { body: { scheduled_artifact: scheduled }, createdId: row.id };
  },
});

const neverRun = (row: BiScheduledArtifactsTable): ScheduleRow => ({
  ...row,
  last_status: null,
  last_error_code: null,
  last_error_message: null,
});

export const listScheduledArtifacts = defineOperation({
  name: 'list_bi_scheduled_artifacts',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'List scheduled BI artifacts',
  description:
    'Lists scheduled artifacts, newest first, each with its target, cadence, next_run_at and the status ' +
    'and error of its last run (last_run_id: see GET /v1/bi/runs/{run_id}). Filter by status or target_id ' +
    '(the schedules of one saved query). Archived schedules are not listed.',
  input: Strict({
    status: Type.Optional(ruleFields.status),
    target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/bi/scheduled-artifacts' },
  heavy: heavyFilters({ indexed: ['status', 'target_id'] }),
  responseKey: 'scheduled_artifacts',
  handler: async (ctx, input) => {
    const page = await listSchedules(
      ctx.db,
      ctx.workspaceId,
      input as { status?: ScheduleStatus; target_id?: string },
      pageRequest('list_bi_scheduled_artifacts', input),
    );
    return { body: listBody('scheduled_artifacts', page) };
  },
});

/** What update_bi_object may change on a scheduled artifact (validated strictly by that operation). */
export const ScheduledArtifactUpdate = Strict({
  name: Type.Optional(name),
  target: Type.Optional(TargetInput),
  cadence: Type.Optional(ruleFields.cadence),
  minute: Type.Optional(ruleFields.minute),
  hour: Type.Optional(Type.Union([ruleFields.hour, Type.Null()])),
  weekday: Type.Optional(Type.Union([ruleFields.weekday, Type.Null()])),
  day_of_month: Type.Optional(Type.Union([ruleFields.day_of_month, Type.Null()])),
  timezone: Type.Optional(ruleFields.timezone),
  status: Type.Optional(ruleFields.status),
});
export type ScheduledArtifactPatch = Static<typeof ScheduledArtifactUpdate>;
const UPDATABLE = Object.keys(ScheduledArtifactUpdate.properties) as (keyof ScheduledArtifactPatch)[];
const COLUMNS = [
  'name',
  'target_type',
  'target_id',
  'cadence',
  'minute',
  'hour',
  'weekday',
  'day_of_month',
  'timezone',
  'status',
] as const;

/**
 * The rule after a patch: sent fields replace stored ones; a stored field the (new) cadence does not use is
 * dropped, so daily -> hourly forgets the hour while daily -> weekly keeps it. A field sent that the cadence
 * does not use is still refused by ruleFrom.
 */
function patchedRule(row: BiScheduledArtifactsTable, patch: ScheduledArtifactPatch): ScheduleRule {
  const cadence = patch.cadence ?? row.cadence;
  const pick = <K extends 'hour' | 'weekday' | 'day_of_month'>(field: K, stored: RuleInput[K]) =>
    patch[field] !== undefined ? patch[field] : cadenceUses(cadence, field) ? stored : undefined;
  return ruleFrom({
    cadence,
    minute: patch.minute ?? Number(row.minute),
    hour: pick('hour', row.hour === null ? null : Number(row.hour)),
    weekday: pick('weekday', row.weekday),
    day_of_month: pick('day_of_month', dayOfMonthOf(row.day_of_month)),
    timezone: patch.timezone ?? row.timezone,
  });
}

/**
 * Applies an update to a live schedule of this workspace (update_bi_object): validates the rule and the
 * target, recomputes next_run_at from now when the rule changes or the schedule is resumed (no catch-up
 * for the paused time), clears it when paused, writes and audits. Returns the schedule and the changed
 * fields (none: nothing written).
 */
export async function updateScheduledArtifact(
  ctx: OperationContext,
  id: string,
  patch: ScheduledArtifactPatch,
): Promise<{ scheduled_artifact: ScheduledArtifact; changed: string[] }> {
  requireSomeField(patch, UPDATABLE);
  const row = await findSchedule(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('scheduled artifact');
  const rule = patchedRule(row, patch);
  if (patch.target) await checkTarget(ctx, patch.target.type, patch.target.id);
  const status = patch.status ?? row.status;
  const proposed: Partial<BiScheduledArtifactsTable> = {
    name: patch.name,
    target_type: patch.target?.type,
    target_id: patch.target?.id,
    ...ruleColumns(rule),
    status,
  };
  const { changes, changed } = diffFields<BiScheduledArtifactsTable>(row, proposed, COLUMNS);
  if (changed.length === 0) return { scheduled_artifact: toScheduledArtifact(row), changed };
  const ruleChanged = changed.some((field) => field !== 'name' && !field.startsWith('target'));
  const set: Partial<BiScheduledArtifactsTable> = { ...changes, updated_at: ctx.now };
  if (ruleChanged) set.next_run_at = nextRunAt(rule, status, ctx.now);
  await updateScheduleRow(ctx.db, ctx.workspaceId, row.id, set);
  const audited = changed.map((field) => (field.startsWith('target_') ? 'target' : field));
  ctx.audit({ targetType: RECORD, targetId: row.id, changedFields: [...new Set(audited)] });
  return { scheduled_artifact: toScheduledArtifact({ ...row, ...set }), changed };
}

/** Archives a schedule (archive_bi_object): it stops running at once; archiving again changes nothing. */
export async function archiveScheduledArtifact(
  ctx: OperationContext,
  id: string,
): Promise<ScheduledArtifact> {
  const row = await findSchedule(ctx.db, ctx.workspaceId, id);
  if (!row) throw notFound('scheduled artifact');
  if (row.archived_at) {
    ctx.audit({ targetType: RECORD, targetId: row.id, changedFields: [] });
    return toScheduledArtifact(row);
  }
  const set = { archived_at: ctx.now, updated_at: ctx.now, next_run_at: null };
  await updateScheduleRow(ctx.db, ctx.workspaceId, row.id, set);
  ctx.audit({ targetType: RECORD, targetId: row.id, changedFields: ['archived_at'] });
  return toScheduledArtifact({ ...row, ...set });
}

export const scheduleOperations: OperationDefinition[] = [createScheduledArtifact, listScheduledArtifacts];
export const scheduleRecordTypes: RecordType[] = [scheduledArtifactRecord];
