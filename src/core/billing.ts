import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/tables.ts';
import type { Workspace } from './auth.ts';
import { monthBilledUnits } from './call-event-months.ts';
import type { OperationDefinition, OperationResult } from './define-operation.ts';
import { fail } from './errors.ts';
import { countRecords, type RecordType } from './record-types.ts';

export function billingPeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

export function hasBillingLimits(workspace: Workspace): boolean {
  return workspace.creditUnits !== null || workspace.monthlyCapUnits !== null;
}

/**
 * Stage "billing": 402 billing_paused when prepaid credit is used up or does not cover the operation's
 * declared units, or the month's cap is reached or would be passed by them; 403 billing_limit_exceeded
 * when a create would pass the workspace's entitlement for that record type (or the type's default cap). Units a handler reports for
 * its work beyond the declared ones are known only afterwards: that call still commits, and the next is
 * paused. An unbilled call (a public site key's) consumes no credit, so it cannot pause the workspace's
 * API keys; while they are paused it is refused with 429 rate_limited (a browser retries it later).
 * These checks read the cached workspace and refuse early; concurrent calls pass them together, so the
 * call's transaction checks again, atomically with the charge (billing-charge.ts).
 */
export async function checkBilling(
  db: Kysely<DB>,
  workspace: Workspace,
  now: Date,
  creates: RecordType | undefined,
  units = 1,
  payer: 'billed' | 'unbilled' = 'billed',
): Promise<void> {
  try {
    await checkPaused(db, workspace, now, units);
  } catch (error) {
    if (payer === 'billed') throw error;
    throw fail('rate_limited', {
      message:
        "The workspace's billing is paused: its sites take no events until the operator adds credit or raises the cap.",
      retry_after_seconds: PAUSED_RETRY_SECONDS,
    });
  }
  const entitled = creates ? workspace.entitlements[creates.type] : undefined;
  const maximum = entitled ?? creates?.defaultMaximum;
  if (creates && maximum !== undefined) {
    const count = await countRecords(db, workspace.id, creates);
    if (count >= maximum) throw entitlementExceeded(creates, maximum, entitled != null);
  }
}

/** 403 billing_limit_exceeded for a create beyond the record type's maximum. */
export function entitlementExceeded(creates: RecordType, maximum: number, entitled: boolean) {
  const live = creates.defaultMaximum !== undefined;
  return fail('billing_limit_exceeded', {
    message:
      `The workspace may hold at most ${maximum} ${live ? 'live ' : ''}${creates.type} records` +
      (live
        ? ` (${entitled ? "the operator's entitlement" : 'the default cap'}): archive one, or ask the operator to raise the entitlement ${creates.type}.`
        : '.'),
  });
}

/** How long a site's browsers wait before retrying while billing is paused. */
const PAUSED_RETRY_SECONDS = 60;

async function checkPaused(db: Kysely<DB>, workspace: Workspace, now: Date, units: number): Promise<void> {
  const credit = workspace.creditUnits;
  if (credit !== null && (credit <= 0 || credit < units)) throw creditPaused(credit, units);
  if (workspace.monthlyCapUnits !== null) {
    const used = await monthUnits(db, workspace.id, billingPeriod(now));
    if (used >= workspace.monthlyCapUnits || used + units > workspace.monthlyCapUnits) throw capPaused();
  }
}

/** 402 billing_paused: the credit (when known) does not cover the operation's declared units. */
export function creditPaused(credit: number | undefined, units: number) {
  return fail('billing_paused', {
    message:
      credit === undefined
        ? `Prepaid credit is exhausted or does not cover this operation (${units} units); the operator must add credit.`
        : credit <= 0
          ? 'Prepaid credit is exhausted; the operator must add credit.'
          : `Prepaid credit (${credit} units) does not cover this operation (${units} units); the operator must add credit.`,
  });
}

/** 402 billing_paused: the month's cap is reached or would be passed. */
export function capPaused() {
  return fail('billing_paused', {
    message: "This month's usage cap is reached; the operator must raise it.",
  });
}

/**
 * An entitlement on an amount rather than a record count (asset_bytes): 403 billing_limit_exceeded when
 * what the workspace uses plus adding would pass the operator's maximum (absent: unlimited). The amount is
 * known only to the handler, so it calls this inside its transaction; on PostgreSQL the workspace row is
 * locked first, so two racing calls cannot both take the last room.
 */
export async function checkAmountEntitlement(
  db: Kysely<DB>,
  dialect: Dialect,
  workspaceId: string,
  check: {
    name: string;
    adding: number;
    used: () => Promise<number>;
    message: (maximum: number, used: number) => string;
  },
): Promise<void> {
  const row = await db
    .selectFrom('workspaces')
    .select('entitlements')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const maximum = (JSON.parse(row.entitlements) as Record<string, number | null>)[check.name];
  if (maximum === undefined || maximum === null) return;
  if (dialect === 'postgres')
    await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
  const used = await check.used();
  if (used + check.adding > maximum)
    throw fail('billing_limit_exceeded', { message: check.message(maximum, used) });
}

export async function monthUnits(db: Kysely<DB>, workspaceId: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('billing_usage')
    .select('billed_units')
    .where('workspace_id', '=', workspaceId)
    .where('period', '=', period)
    .executeTakeFirst();
  return row ? Number(row.billed_units) : 0;
}

/**
 * The units a successful call consumes: what its handler reported for the work done, else what the
 * operation declares. A handler reporting anything but a whole number ≥ 0 is a bug (500), never billed.
 */
export function callUnits(
  op: Pick<OperationDefinition, 'name' | 'units'>,
  result: Pick<OperationResult, 'units'>,
): number {
  const units = result.units ?? op.units;
  if (!Number.isSafeInteger(units) || units < 0) {
    throw new Error(`${op.name} reported ${units} usage units; units are whole numbers ≥ 0`);
  }
  return units;
}

/**
 * When an operator sets a cap, the month's counter starts from the usage already recorded: the raw call
 * events still kept plus what retention rolled up of the month (a short WOS_CALL_EVENT_RETENTION_DAYS may
 * have moved part of the current month already).
 */
export async function seedMonthCounter(db: Kysely<DB>, workspaceId: string, now: Date): Promise<void> {
  const period = billingPeriod(now);
  const units = await monthBilledUnits(db, workspaceId, period);
  await db
    .insertInto('billing_usage')
    .values({ workspace_id: workspaceId, period, billed_units: units })
    .onConflict((oc) => oc.columns(['workspace_id', 'period']).doUpdateSet({ billed_units: units }))
    .execute();
}
