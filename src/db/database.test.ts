import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type Database, openDatabase } from './database.ts';

let dir: string;
let database: Database;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-database-'));
  database = openDatabase(loadConfig({ WOS_DATA_DIR: dir }));
});
afterAll(async () => {
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const pragma = async (name: string) =>
  Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] as object)[0];

describe('the SQLite connection', () => {
  it('writes the WAL without auto-checkpoints and keeps journals and temporary trees in memory', async () => {
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1); // NORMAL
    expect(await pragma('wal_autocheckpoint')).toBe(0);
    expect(await pragma('temp_store')).toBe(2); // MEMORY
    expect(await pragma('foreign_keys')).toBe(1);
  });
});
