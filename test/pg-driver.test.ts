// The main pool's driver on PostgreSQL (src/db/pg-driver.ts): a transaction's BEGIN goes with its first
// statement (once the connection has parsed it) and that statement still runs inside the transaction; a
// transaction that runs nothing sends nothing; a failing first statement leaves the connection usable.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { insertCallEvent } from '../src/core/call-events.ts';
import { claimKey } from '../src/core/idempotency.ts';
import { type Database, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { callEventRow } from './helpers/call-event-row.ts';
import { isolatedDatabase, usingPostgres } from './helpers/harness.ts';

let place: Awaited<ReturnType<typeof isolatedDatabase>>;
let database: Database;

beforeAll(async () => {
  if (!usingPostgres) return;
  place = await isolatedDatabase();
  // One connection: every transaction below runs on the same one, so what it has parsed is known.
  database = openDatabase(loadConfig({ ...place.env, WOS_DATABASE_POOL_SIZE: '1' }));
  await migrateToLatest(database.db, place.env.WOS_DATABASE_SCHEMA);
});
afterAll(async () => {
  if (!usingPostgres) return;
  await database.close();
  await place.drop();
});

/** The first word of each query a pg client is handed while `work` runs. */
async function queriesOf(work: () => Promise<unknown>): Promise<{ sent: string[]; outcome: unknown }> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    sent.push(text.split(' ')[0]!);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    const outcome = await work().catch((error: Error) => error.message);
    return { sent, outcome };
  } finally {
    pg.Client.prototype.query = original;
  }
}

const claim = (trx: Parameters<typeof claimKey>[0], key: string) =>
  claimKey(trx, {
    workspaceId: 'wks_driver',
    resourceType: 'contact',
    key,
    operation: 'create_contact',
    fingerprint: 'f',
    now: new Date().toISOString(),
  });

/** A transaction claiming `key`, then failing when `fail` says so. */
const claiming = (key: string, fail: boolean) => () =>
  database.transaction(async (trx) => {
    await claim(trx, key);
    if (fail) throw new Error('failed after the claim');
  });

const claimedKeys = async () =>
  (await database.db.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key);

describe.runIf(usingPostgres)('the main pool driver on PostgreSQL', () => {
  it("sends BEGIN with a transaction's first statement once parsed, still inside the transaction", async () => {
    // First use of the claim on the connection: its BEGIN goes alone.
    expect(await queriesOf(claiming('k1', true))).toEqual({
      sent: ['begin', 'insert', 'rollback'],
      outcome: 'failed after the claim',
    });
    expect(await queriesOf(claiming('k2', false))).toEqual({
      sent: ['insert', 'commit'],
      outcome: undefined,
    });
    // With its BEGIN: rolled back with the transaction, so it ran inside it.
    expect(await queriesOf(claiming('k3', true))).toEqual({
      sent: ['insert', 'rollback'],
      outcome: 'failed after the claim',
    });
    expect(await claimedKeys()).toEqual(['k2']);
  });

  it('sends nothing for a transaction without statements, and BEGIN alone before a text without parameters', async () => {
    expect(await queriesOf(() => database.transaction(async () => 'nothing'))).toEqual({
      sent: [],
      outcome: 'nothing',
    });
    const selectOne = () => database.transaction((trx) => sql<{ one: number }>`select 1 as one`.execute(trx));
    const { sent } = await queriesOf(selectOne);
    expect(sent).toEqual(['begin', 'select', 'commit']);
  });

  it('keeps the connection usable when the statement sent with BEGIN fails', async () => {
    const row = callEventRow({
      workspace_id: 'wks_driver',
      route: 'POST /v1/contacts',
      credential_id: 'key_driver',
      duration_ms: 1,
    });
    const insert = () => database.transaction((trx) => insertCallEvent(trx, row));
    expect((await queriesOf(insert)).sent).toEqual(['begin', 'insert', 'commit']);
    // The same row again: the insert sent with BEGIN fails on the primary key; the transaction rolls back.
    const again = await queriesOf(insert);
    expect(again.sent).toEqual(['insert', 'rollback']);
    expect(again.outcome).toMatch(/duplicate key/);
    expect(await queriesOf(claiming('k4', false))).toEqual({
      sent: ['insert', 'commit'],
      outcome: undefined,
    });
    const stored = await database.db
      .selectFrom('call_events')
      .select('id')
      .where('workspace_id', '=', 'wks_driver')
      .execute();
    expect(stored).toEqual([{ id: row.id }]);
    expect(await claimedKeys()).toEqual(['k2', 'k4']);
  });
});
