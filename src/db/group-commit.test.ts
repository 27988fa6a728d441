import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.ts';
import type { DB } from './tables.ts';

let db: Kysely<DB>;
let begins: number;

beforeEach(async () => {
  begins = 0;
  const sqlite = new SQLite(':memory:');
  db = new Kysely<DB>({
    dialect: new SqliteDialect({
      database: {
        close: () => sqlite.close(),
        prepare: (text: string) => {
          if (/^begin/i.test(text)) begins++;
          return sqlite.prepare(text);
        },
      },
    }),
  });
  await sql`create table items (name text not null)`.execute(db);
});
afterEach(() => db.destroy());

const insert = (trx: Kysely<DB>, name: string) => sql`insert into items (name) values (${name})`.execute(trx);
const names = async () =>
  (await sql<{ name: string }>`select name from items order by name`.execute(db)).rows.map((r) => r.name);

describe('group commit', () => {
  it('commits calls of one turn together, and a failing call leaves nothing behind', async () => {
    const run = groupCommit(db);
    const results = await Promise.allSettled([
      run(async (trx) => {
        await insert(trx, 'a');
        return 'first';
      }),
      run(async (trx) => {
        await insert(trx, 'b');
        throw new Error('second fails after writing');
      }),
      run(async (trx) => {
        await insert(trx, 'c');
        return 'third';
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<string>).value).toBe('first');
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('second fails after writing');
    expect(await names()).toEqual(['a', 'c']);
    expect(begins).toBe(1);
  });

  it('starts a new batch for calls that arrive later', async () => {
    const run = groupCommit(db);
    await run((trx) => insert(trx, 'x'));
    await run((trx) => insert(trx, 'y'));
    expect(await names()).toEqual(['x', 'y']);
    expect(begins).toBe(2);
  });
});
