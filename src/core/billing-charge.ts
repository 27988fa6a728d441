import { type Kysely, sql } from 'kysely';
import { lockUntilCommit } from '../db/dialect.ts';
import type { DB } from '../db/tables.ts';
import type { Workspace } from './auth.ts';
import { billingPeriod, capPaused, creditPaused, entitlementExceeded } from './billing.ts';
import { countRecords, type RecordType } from './record-types.ts';

// The authoritative half of billing, inside the call's transaction: the billing stage (billing.ts) refuses
// early from the cached workspace, but concurrent calls (on one node or many) all pass it together. Here
// each check and its charge is one statement, or runs under a lock, against what the database holds now;
// a refusal throws, so the call's writes roll back and nothing is charged.

/**
 * Charges a successful call's units. Credit: one conditional UPDATE, which takes them only while the
 * credit is above 0 and covers the declared units (units reported beyond them may take it below zero).
 * The month's cap: one conditional upsert of the month's counter, comparing it with the cap the workspace
 * row holds now. Either failing is 402 billing_paused. Only workspaces with limits keep counters.
 */
export async function chargeUnits(
  db: Kysely<DB>,
  workspace: Workspace,
  charge: { units: number; declared: number },
  now: Date,
): Promise<void> {
  const { units, declared } = charge;
  if (workspace.creditUnits !== null) {
    // A credit lifted (null) on another node since this one cached the workspace charges nothing.
    const charged = await sql<{ credit_units: number | null }>`
      update workspaces set credit_units = credit_units - ${units}
      where id = ${workspace.id}
        and (credit_units is null or (credit_units > 0 and credit_units >= ${declared}))
      returning credit_units`.execute(db);
    if (charged.rows.length === 0) throw creditPaused(undefined, declared);
  }
  if (workspace.monthlyCapUnits !== null) {
    // The cap is read from the workspace row inside the statement (a cap lifted meanwhile passes: null
    // compares as unknown); the counter row is the one every node adds to.
    const over = (used: ReturnType<typeof sql>) => sql`exists (
      select 1 from workspaces w where w.id = ${workspace.id}
        and (w.monthly_cap_units <= ${used} or ${used} + ${declared} > w.monthly_cap_units))`;
    const charged = await sql<{ billed_units: number }>`
      insert into billing_usage (workspace_id, period, billed_units)
      select ${workspace.id}, ${billingPeriod(now)}, ${units} where not ${over(sql`0`)}
      on conflict (workspace_id, period) do update
        set billed_units = billing_usage.billed_units + excluded.billed_units
        where not ${over(sql`billing_usage.billed_units`)}
      returning billed_units`.execute(db);
    if (charged.rows.length === 0) throw capPaused();
  }
}

/**
 * A create's entitlement (or the record type's default cap), checked after its insert in the same
 * transaction: under a lock per workspace and record type, held until the commit, the count (the new
 * record included) may not pass the maximum the workspace row holds now. Racing creates take the lock one
 * after another, and each counts the records the ones before it committed. 403 billing_limit_exceeded.
 */
export async function holdEntitlement(
  db: Kysely<DB>,
  workspace: Workspace,
  creates: RecordType,
): Promise<void> {
  // The cached workspace says whether a maximum applies (creates of unlimited types pay nothing here);
  // the row read under the lock says which.
  if (workspace.entitlements[creates.type] == null && creates.defaultMaximum === undefined) return;
  await lockUntilCommit(db, `entitlement:${workspace.id}:${creates.type}`);
  const entitled = (await entitlementsOf(db, workspace.id))[creates.type];
  const maximum = entitled ?? creates.defaultMaximum;
  if (maximum === undefined) return;
  if ((await countRecords(db, workspace.id, creates)) > maximum)
    throw entitlementExceeded(creates, maximum, entitled != null);
}

async function entitlementsOf(db: Kysely<DB>, workspaceId: string): Promise<Record<string, number | null>> {
  const row = await db
    .selectFrom('workspaces')
    .select('entitlements')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return JSON.parse(row.entitlements) as Record<string, number | null>;
}
