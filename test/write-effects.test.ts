// What a write stores after its handler (key binding, audit, outbox and call event; one statement on
// PostgreSQL, sent with the COMMIT) commits with the write or not at all, and idempotency stays exact when
// two nodes race.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../src/app.ts';
import { auditRow } from '../src/core/audit.ts';
import { newId } from '../src/core/ids.ts';
import { outboxRow } from '../src/core/outbox.ts';
import { insertWriteEffects } from '../src/core/write-effects.ts';
import type { CallEventsTable } from '../src/db/tables.ts';
import { callEventRow } from './helpers/call-event-row.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let sibling: Service | undefined;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(async () => {
  await sibling?.app.close();
  await h.close();
});

const now = () => new Date().toISOString();
const write = (requestId: string) => ({
  workspaceId: ws.id,
  requestId,
  occurredAt: now(),
  actor: { type: 'api_key' as const, credentialId: 'key_test', name: 'test' },
  surface: 'rest' as const,
  tool: 'create_contact',
  defaultAction: 'create',
});
const callEvent = (requestId: string): CallEventsTable =>
  callEventRow({
    workspace_id: ws.id,
    request_id: requestId,
    occurred_at: now(),
    route: 'POST /v1/contacts',
    credential_id: 'key_test',
    duration_ms: 1,
  });
const rowsOf = async (requestId: string) => ({
  audits: await h.db.selectFrom('audit_events').select('id').where('request_id', '=', requestId).execute(),
  outbox: await h.db.selectFrom('outbox_events').select('id').where('request_id', '=', requestId).execute(),
  calls: await h.db.selectFrom('call_events').select('id').where('request_id', '=', requestId).execute(),
});

describe('write effects', () => {
  it("a create's key, record, audit, outbox and call events are all there after it answers", async () => {
    const res = await h.request('POST', '/v1/contacts', {
      token: ws.apiKey,
      body: { name: 'Effects', idempotency_key: 'effects-1' },
    });
    expect(res.status).toBe(201);
    const key = await h.db
      .selectFrom('idempotency_keys')
      .select('resource_id')
      .where('workspace_id', '=', ws.id)
      .where('key', '=', 'effects-1')
      .executeTakeFirstOrThrow();
    expect(key.resource_id).toBe(res.body.contact.id);
    const rows = await rowsOf(res.body.request_id);
    expect([rows.audits.length, rows.outbox.length, rows.calls.length]).toEqual([1, 1, 1]);
  });

  it('stores several audit and outbox rows at once, and bulk writes past one statement', async () => {
    for (const count of [3, 150]) {
      const requestId = newId('req');
      await h.service.deps.database.transaction(async (trx) => {
        await insertWriteEffects(trx, {
          audits: Array.from({ length: count }, (_, i) =>
            auditRow(write(requestId), { targetType: 'contact', targetId: `con_${i}` }),
          ),
          outbox: Array.from({ length: count }, (_, i) =>
            outboxRow(ws.id, requestId, now(), { name: 'contact.created', data: { i } }),
          ),
          callEvent: callEvent(requestId),
        });
      });
      const rows = await rowsOf(requestId);
      expect([rows.audits.length, rows.outbox.length, rows.calls.length]).toEqual([count, count, 1]);
    }
  });

  it('leaves nothing when one of the rows fails: the record written before them rolls back too', async () => {
    const taken = callEvent(newId('req'));
    await h.service.deps.database.transaction((trx) =>
      insertWriteEffects(trx, { audits: [], outbox: [], callEvent: taken }),
    );
    const requestId = newId('req');
    const contactId = newId('con');
    await expect(
      h.service.deps.database.transaction(async (trx) => {
        await trx
          .insertInto('contacts')
          .values({
            workspace_id: ws.id,
            id: contactId,
            name: 'Rolled back',
            email: null,
            phone: null,
            company_id: null,
            company_name: null,
            notes: null,
            created_at: now(),
            updated_at: now(),
          })
          .execute();
        await insertWriteEffects(trx, {
          audits: [auditRow(write(requestId), { targetType: 'contact', targetId: contactId })],
          outbox: [outboxRow(ws.id, requestId, now(), { name: 'contact.created', data: {} })],
          // The call event is there already (same key): the whole statement fails.
          callEvent: taken,
        });
      }),
    ).rejects.toThrow();
    const rows = await rowsOf(requestId);
    expect([rows.audits.length, rows.outbox.length]).toEqual([0, 0]);
    const contact = await h.db.selectFrom('contacts').select('id').where('id', '=', contactId).execute();
    expect(contact).toEqual([]);
  });

  it.runIf(usingPostgres)(
    'sends the COMMIT with the statement, before its answer; nothing may follow it',
    async () => {
      const sent: string[] = [];
      const original = pg.Client.prototype.query;
      pg.Client.prototype.query = function (
        this: pg.Client & { readyForQuery: boolean },
        ...args: unknown[]
      ) {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
        sent.push(`${text.split(' ')[0]}${this.readyForQuery ? '' : ' (one unanswered)'}`);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
      const requestId = newId('req');
      try {
        await expect(
          h.service.deps.database.transaction(async (trx) => {
            await insertWriteEffects(trx, { audits: [], outbox: [], callEvent: callEvent(requestId) });
            await trx.selectFrom('contacts').select('id').execute();
          }),
        ).rejects.toThrow('A statement after the one that committed its transaction');
      } finally {
        pg.Client.prototype.query = original;
      }
      // BEGIN goes alone the first time the connection sends the statement, else with it (pg-driver.test.ts).
      expect(sent.filter((query) => query !== 'begin')).toEqual(['insert', 'commit (one unanswered)']);
      // Committed with the statement, before the mistake after it.
      expect((await rowsOf(requestId)).calls).toHaveLength(1);
    },
  );

  it.runIf(usingPostgres)('creates exactly one record when two nodes race one idempotency key', async () => {
    sibling = await h.startSibling();
    const post = (service: Service) =>
      service.app.inject({
        method: 'POST',
        url: '/v1/contacts',
        headers: { authorization: `Bearer ${ws.apiKey}` },
        payload: { name: 'Raced', idempotency_key: 'two-nodes' },
      });
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => post(i % 2 ? sibling! : h.service)),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    const ids = new Set(responses.map((r) => JSON.parse(r.body).contact.id));
    expect(ids.size).toBe(1);
    const records = await h.db.selectFrom('contacts').select('id').where('name', '=', 'Raced').execute();
    expect(records).toHaveLength(1);
    const audits = await h.db
      .selectFrom('audit_events')
      .select('id')
      .where('target_id', '=', [...ids][0]!)
      .execute();
    expect(audits).toHaveLength(1);
  });
});
