// readSnapshot: several reads see the database as of one moment, though a write commits between them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../src/db/read-snapshot.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

describe('readSnapshot', () => {
  it('keeps its reads consistent while a write commits between them, which then lands', async () => {
    const created = await h.request('POST', '/v1/contacts', { token: ws.apiKey, body: { name: 'Before' } });
    expect(created.status).toBe(201);
    const id = created.body.contact.id as string;
    const nameOf = (db: typeof h.db) =>
      db
        .selectFrom('contacts')
        .select('name')
        .where('workspace_id', '=', ws.id)
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    const seen = await readSnapshot(h.db, async (db) => {
      const first = await nameOf(db);
      const writing = h.db
        .updateTable('contacts')
        .set({ name: 'After' })
        .where('workspace_id', '=', ws.id)
        .where('id', '=', id)
        .execute();
      // PostgreSQL commits the write on another connection now; SQLite's one connection makes it wait.
      if (usingPostgres) await writing;
      const second = await nameOf(db);
      return { first, second, writing };
    });
    await seen.writing;
    expect(seen.first).toEqual({ name: 'Before' });
    expect(seen.second).toEqual({ name: 'Before' });
    expect(await nameOf(h.db)).toEqual({ name: 'After' });
  });

  it('runs on the heavy-read connections as they are: they open no transactions', async () => {
    const heavy = h.service.deps.database.heavy;
    const row = await readSnapshot(heavy, async (db) => {
      expect(db).toBe(heavy);
      return db.selectFrom('workspaces').select('id').where('id', '=', ws.id).executeTakeFirst();
    });
    expect(row).toEqual({ id: ws.id });
  });

  it('runs inside the transaction it is given', async () => {
    const inside = await h.db.transaction().execute((trx) => readSnapshot(trx, async (db) => db === trx));
    expect(inside).toBe(true);
  });
});
