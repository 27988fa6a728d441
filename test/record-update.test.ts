// updateRecord (src/core/record-update.ts) writes only the columns a patch changed, plus updated_at: a
// concurrent write to another column of the same row is never overwritten with the value read before it.
// Observed with an "UPDATE OF <columns>" trigger, which both databases fire when one of those columns is
// named in the statement's SET list, whatever its value.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

const call = (method: string, url: string, body?: unknown) =>
  h.request(method, url, { token: ws.apiKey, body });

/** Records `table` in update_probe whenever an UPDATE of `table` names one of `columns`. */
async function probe(table: string, columns: string[]) {
  const list = columns.join(', ');
  if (usingPostgres) {
    await sql
      .raw(`create function probe_${table}() returns trigger language plpgsql as $$
        begin insert into update_probe values ('${table}'); return null; end $$`)
      .execute(h.db);
    await sql
      .raw(`create trigger probe_${table} after update of ${list} on ${table}
        for each row execute function probe_${table}()`)
      .execute(h.db);
  } else {
    await sql
      .raw(`create trigger probe_${table} after update of ${list} on ${table}
        begin insert into update_probe values ('${table}'); end`)
      .execute(h.db);
  }
}

async function probed(table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from update_probe
    where target = ${table}`.execute(h.db);
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  await sql`create table update_probe (target text not null)`.execute(h.db);
  await probe('deals', ['name', 'amount_cents', 'currency', 'company_id', 'contact_id', 'custom_fields']);
  await probe('notes', ['title', 'contact_id', 'custom_fields', 'metadata', 'author_name']);
});
afterAll(() => h.close());

describe('an update writes only the columns it changes', () => {
  it('update_deal: notes alone leave the other columns out of the statement', async () => {
    const created = await call('POST', '/v1/deals', { name: 'Probe', amount_cents: 500 });
    expect(created.status).toBe(201);
    const id = created.body.deal.id;

    const notes = await call('PATCH', `/v1/deals/${id}`, { notes: 'Called back' });
    expect(notes.status).toBe(200);
    expect(notes.body.deal).toMatchObject({ notes: 'Called back', amount_cents: 500, name: 'Probe' });
    expect(await probed('deals')).toBe(0);

    // The same values again write nothing at all; a changed amount names its column (the probe works).
    expect((await call('PATCH', `/v1/deals/${id}`, { notes: 'Called back' })).status).toBe(200);
    const amount = await call('PATCH', `/v1/deals/${id}`, { amount_cents: 700 });
    expect(amount.body.deal.amount_cents).toBe(700);
    expect(await probed('deals')).toBe(1);
  });

  it('update_note: a new body leaves the title, subjects, maps and author out of the statement', async () => {
    const contact = await call('POST', '/v1/contacts', { name: 'Ada' });
    const note = await call('POST', '/v1/notes', {
      title: 'Call',
      body: 'First',
      contact_id: contact.body.contact.id,
      custom_fields: { tier: 'gold' },
    });
    expect(note.status).toBe(201);
    const id = note.body.note.id;

    const edited = await call('PATCH', `/v1/notes/${id}`, { body: 'Second' });
    expect(edited.status).toBe(200);
    expect(edited.body.note).toMatchObject({
      body: 'Second',
      title: 'Call',
      custom_fields: { tier: 'gold' },
    });
    expect(await probed('notes')).toBe(0);

    const merged = await call('PATCH', `/v1/notes/${id}`, { custom_fields: { seats: 3 } });
    expect(merged.body.note.custom_fields).toEqual({ tier: 'gold', seats: 3 });
    expect(await probed('notes')).toBe(1);
  });
});
