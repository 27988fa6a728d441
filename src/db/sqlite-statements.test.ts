import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statementCache } from './sqlite-statements.ts';

let sqlite: SQLite.Database;
let database: ReturnType<typeof statementCache>;

beforeEach(() => {
  sqlite = new SQLite(':memory:');
  sqlite.exec(
    "create table t (id text primary key, n integer, note text); insert into t values ('a', 1, null), ('b', 2, 'x')",
  );
  database = statementCache(sqlite);
});
afterEach(() => database.close());

describe('the statement cache', () => {
  it('reads rows as objects of the selected columns, in order, the last of a repeated name winning', () => {
    const select = database.prepare('select * from t order by id');
    expect(select.reader).toBe(true);
    expect(select.all([])).toEqual([
      { id: 'a', n: 1, note: null },
      { id: 'b', n: 2, note: 'x' },
    ]);
    expect([...select.iterate([])]).toEqual(select.all([]));
    const repeated = database.prepare("select id as k, n as k from t where id = 'b'");
    expect(repeated.all([])).toEqual([sqlite.prepare("select id as k, n as k from t where id = 'b'").get()]);
  });

  it('prepares a text once, and writes through it', () => {
    const insert = database.prepare('insert into t (id, n) values (?, ?)');
    expect(database.prepare('insert into t (id, n) values (?, ?)')).toBe(insert);
    expect(insert.run(['c', 3]).changes).toBe(1);
    const returning = database.prepare('insert into t (id, n) values (?, ?) returning id, n');
    expect(returning.all(['d', 4])).toEqual([{ id: 'd', n: 4 }]);
  });

  it('reads the column names again after a schema change, also one made by another connection', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-statements-'));
    const file = path.join(dir, 'db.sqlite');
    const own = statementCache(new SQLite(file));
    const other = new SQLite(file);
    try {
      other.exec("create table t (id text primary key, note text); insert into t values ('a', null)");
      const select = own.prepare('select * from t');
      expect(select.all([])).toEqual([{ id: 'a', note: null }]);
      own.prepare('alter table t add column extra text').run([]);
      expect(select.all([])).toEqual([{ id: 'a', note: null, extra: null }]);
      other.exec('alter table t rename column note to remark');
      expect(select.all([])).toEqual([{ id: 'a', remark: null, extra: null }]);
    } finally {
      other.close();
      own.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
