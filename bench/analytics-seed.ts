// Direct writes for `npm run bench:analytics`: the seed of the reads (hourly and daily rollups, daily actor
// sketches, raw events of a few objects) as multi-row inserts in one transaction, and the yardstick of the
// ingest run, a bare multi-row insert of app_events rows. SQLite through better-sqlite3, PostgreSQL through pg.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { newId } from '../src/core/ids.ts';
import {
  actorHash,
  addHashes,
  emptySketch,
  encodeSketch,
} from '../src/modules/product-analytics/actor-sketch.ts';
import { APP_EVENT_COLUMNS, type AppEventsTable } from '../src/modules/product-analytics/analytics-tables.ts';
import {
  ACTOR_COLUMNS,
  entry,
  eventsPerObject,
  hoursFrom,
  objectAt,
  propertiesOf,
  ROLLUP_COLUMNS,
  random,
  simulateObject,
  WINDOW_HOURS,
} from './analytics-data.ts';

export interface Table {
  name: string;
  columns: readonly string[];
  /** Columns that are bigint on PostgreSQL (the rest are text). */
  numbers?: readonly string[];
  /** Columns that are bytea on PostgreSQL (Buffers). */
  bytes?: readonly string[];
}

/**
 * Tables that ingest fills in time order (a rollup row is made at its hour's first event, a daily row at its
 * day's): the seed, generated object by object, stages them and copies them over in that order, so rows of
 * one hour sit together as they would in service (on disk, in SQLite's rowid and PostgreSQL's heap order).
 */
const TIME_ORDERED: [Table, string][] = [];
const staged = (table: Table, order: string): Table => {
  TIME_ORDERED.push([table, order]);
  return { ...table, name: `bench_stage_${table.name}` };
};

const ROLLUPS: Table = staged(
  {
    name: 'app_event_rollups',
    columns: [
      'workspace_id',
      'app',
      'object_type',
      'object_id',
      'event_name',
      'hour',
      'events',
      'first_seen',
      'last_seen',
    ],
    numbers: ['events'],
  },
  'hour, app, object_type, object_id, event_name',
);
const HOUR_TOTALS: Table = {
  name: 'app_event_hour_totals',
  columns: ['workspace_id', 'hour', 'app', 'event_name', 'events'],
  numbers: ['events'],
};
const DAY_ROLLUPS: Table = staged(
  {
    name: 'app_event_day_rollups',
    columns: [
      'workspace_id',
      'app',
      'object_type',
      'object_id',
      'event_name',
      'day',
      'events',
      'first_seen',
      'last_seen',
    ],
    numbers: ['events'],
  },
  'day, app, object_type, object_id, event_name',
);
const ACTOR_SKETCHES: Table = staged(
  {
    name: 'app_event_actor_sketches',
    columns: ['workspace_id', 'app', 'object_type', 'object_id', 'day', 'sketch'],
    bytes: ['sketch'],
  },
  'day, app, object_type, object_id',
);
export const EVENT_COLUMNS = APP_EVENT_COLUMNS;
export const EVENTS: Table = { name: 'app_events', columns: EVENT_COLUMNS };

export const insertSql = (table: Table, rows: number, param: (i: number) => string) => {
  const width = table.columns.length;
  const tuples = Array.from(
    { length: rows },
    (_, r) => `(${table.columns.map((_, c) => param(r * width + c + 1)).join(',')})`,
  );
  return `insert into ${table.name} (${table.columns.join(',')}) values ${tuples.join(',')}`;
};

/** Buffers rows per table and writes them in multi-row statements, all in one transaction. */
export interface BulkWriter {
  add(table: Table, row: readonly unknown[]): Promise<void>;
  /** Runs a statement after writing every buffered row. */
  exec(statement: string): Promise<void>;
  finish(): Promise<void>;
}

/**
 * SQLite: the service must not be running; the rollback journal during the load keeps the WAL small. No
 * ANALYZE unless asked (`analyze`): the service never runs it, so its planner works without statistics.
 */
export function sqliteWriter(file: string, analyze = false, rowsPerStatement = 200): BulkWriter {
  const db = new SQLite(file);
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  db.exec('begin');
  const buffers = new Map<Table, unknown[]>();
  const statements = new Map<string, SQLite.Statement>();
  const write = (table: Table, values: unknown[]) => {
    const rows = values.length / table.columns.length;
    const key = `${table.name}/${rows}`;
    entry(statements, key, () => db.prepare(insertSql(table, rows, () => '?'))).run(values);
  };
  return {
    add: async (table, row) => {
      const buffer = entry(buffers, table, () => []);
      for (const value of row) buffer.push(value);
      if (buffer.length >= rowsPerStatement * table.columns.length) {
        write(table, buffer);
        buffers.set(table, []);
      }
    },
    exec: async (statement) => {
      for (const [table, buffer] of buffers) if (buffer.length) write(table, buffer);
      buffers.clear();
      db.exec(statement);
    },
    finish: async () => {
      for (const [table, buffer] of buffers) if (buffer.length) write(table, buffer);
      db.exec('commit');
      if (analyze) db.exec('analyze');
      db.pragma('journal_mode = WAL');
      db.close();
    },
  };
}

export function pgClient(url: string, schema: string) {
  return new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
}

/** PostgreSQL: one insert ... select from unnest(arrays) per 5,000 rows, then ANALYZE (as autovacuum would). */
export async function pgWriter(url: string, schema: string, rowsPerStatement = 5_000): Promise<BulkWriter> {
  const client = pgClient(url, schema);
  await client.connect();
  await client.query('begin');
  const buffers = new Map<Table, unknown[][]>();
  const write = async (table: Table, rows: unknown[][]) => {
    const types = table.columns.map(
      (c, i) =>
        `$${i + 1}::${table.numbers?.includes(c) ? 'bigint' : table.bytes?.includes(c) ? 'bytea' : 'text'}[]`,
    );
    await client.query(
      `insert into ${table.name} (${table.columns.join(',')}) select * from unnest(${types.join(',')})`,
      table.columns.map((_, c) => rows.map((row) => row[c])),
    );
  };
  return {
    add: async (table, row) => {
      const buffer = entry(buffers, table, () => []);
      buffer.push([...row]);
      if (buffer.length >= rowsPerStatement) {
        buffers.set(table, []);
        await write(table, buffer);
      }
    },
    exec: async (statement) => {
      for (const [table, buffer] of buffers) if (buffer.length) await write(table, buffer);
      buffers.clear();
      await client.query(statement);
    },
    finish: async () => {
      for (const [table, buffer] of buffers) if (buffer.length) await write(table, buffer);
      await client.query('commit');
      // As autovacuum would after the inserts (PostgreSQL 13+ vacuums insert-only tables too): statistics,
      // and the visibility map that index-only scans need.
      await client.query(
        'vacuum analyze app_event_rollups, app_event_day_rollups, app_event_hour_totals, app_event_actor_sketches, app_events',
      );
      await client.end();
    },
  };
}

/** Objects whose raw events are seeded too, for the drill-down (popularity ranks). */
const RAW_RANKS = [100, 1_000];

export interface SeedSummary {
  events: number;
  rollups: number;
  /** Actor-days, before they become one sketch per object and day. */
  actors: number;
  rawEvents: number;
  /** The most popular object, its events and its exact distinct actors over the 30 days. */
  top: { key: ReturnType<typeof objectAt>; events: number; actors: number };
  drill?: { key: ReturnType<typeof objectAt>; events: number };
}

/**
 * What `events` application events over `objects` objects in the last 30 days leave in the tables the
 * reads use (what ingest writes, less the event_id ledger): hourly and daily rollups and daily actor sketches of every object,
 * hourly totals per app and event name, raw rows for the drill-down objects only.
 */
export async function seedAppEvents(
  writer: BulkWriter,
  workspaceId: string,
  events: number,
  objects: number,
  now: number,
): Promise<SeedSummary> {
  const perObject = eventsPerObject(events, objects);
  const time = hoursFrom(Math.floor(now / 3_600_000) * 3_600_000 - (WINDOW_HOURS - 1) * 3_600_000);
  // Objects in primary-key order, so the inserts append to the tables' main indexes.
  const keyText = (rank: number) => Object.values(objectAt(rank)).join('\u0000');
  const order = Array.from({ length: objects }, (_, rank) => rank);
  const keys = order.map(keyText);
  order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const summary: SeedSummary = {
    events: 0,
    rollups: 0,
    actors: 0,
    rawEvents: 0,
    top: { key: objectAt(0), events: perObject[0]!, actors: 0 },
  };
  for (const [table] of TIME_ORDERED) {
    await writer.exec(`create table bench_stage_${table.name} as select * from ${table.name} where 1 = 0`);
  }
  // Per hour, app and event name over every object (what the timeseries reads when no object filter is set).
  const hourTotals = new Map<string, number>();
  for (const rank of order) {
    const { rollups, actors } = simulateObject(rank, perObject[rank]!, time);
    summary.events += perObject[rank]!;
    for (let i = 0; i < rollups.length; i += ROLLUP_COLUMNS) {
      const row = rollups.slice(i, i + ROLLUP_COLUMNS);
      await writer.add(ROLLUPS, [workspaceId, ...row]);
      const [app, , , eventName, hour, events] = row;
      const key = `${hour}\u0000${app}\u0000${eventName}`;
      hourTotals.set(key, (hourTotals.get(key) ?? 0) + Number(events));
    }
    summary.rollups += rollups.length / ROLLUP_COLUMNS;
    for (const row of dayRollups(rollups)) await writer.add(DAY_ROLLUPS, [workspaceId, ...row]);
    // Actors come sorted by day: one sketch per object and day, as ingest merges them.
    const distinct = new Set<string>();
    for (let i = 0; i < actors.length; ) {
      const day = actors[i + 3]!;
      const hashes: number[] = [];
      for (; i < actors.length && actors[i + 3] === day; i += ACTOR_COLUMNS) {
        hashes.push(actorHash(actors[i + 4]!));
        if (rank === 0) distinct.add(actors[i + 4]!);
      }
      const sketch = encodeSketch(addHashes(emptySketch(), hashes));
      await writer.add(ACTOR_SKETCHES, [workspaceId, ...actors.slice(i - ACTOR_COLUMNS, i - 1), sketch]);
    }
    if (rank === 0) summary.top.actors = distinct.size;
    summary.actors += actors.length / ACTOR_COLUMNS;
    if (RAW_RANKS.includes(rank)) {
      summary.rawEvents += await seedRawEvents(writer, workspaceId, rank, rollups);
      if (rank === RAW_RANKS[0]) summary.drill = { key: objectAt(rank), events: perObject[rank]! };
    }
  }
  for (const key of [...hourTotals.keys()].sort()) {
    await writer.add(HOUR_TOTALS, [workspaceId, ...key.split('\u0000'), hourTotals.get(key)]);
  }
  for (const [table, order] of TIME_ORDERED) {
    await writer.exec(`insert into ${table.name} select * from bench_stage_${table.name} order by ${order}`);
    await writer.exec(`drop table bench_stage_${table.name}`);
  }
  await writer.finish();
  return summary;
}

/** One rollup of simulateObject: app, object_type, object_id, event_name, hour, events, first and last seen. */
type RollupValues = [string, string, string, string, string, number, string, string];

/** An object's hourly rollups summed per event name and UTC day, in primary-key order. */
function dayRollups(rollups: (string | number)[]): (string | number)[][] {
  const days = new Map<string, (string | number)[]>();
  for (let i = 0; i < rollups.length; i += ROLLUP_COLUMNS) {
    const [app, type, id, eventName, hour, events, first, last] = rollups.slice(
      i,
      i + ROLLUP_COLUMNS,
    ) as RollupValues;
    const key = `${eventName}\u0000${hour.slice(0, 10)}`;
    const day = days.get(key);
    if (!day) days.set(key, [app, type, id, eventName, hour.slice(0, 10), events, first, last]);
    else {
      day[5] = Number(day[5]) + events;
      if (first < String(day[6])) day[6] = first;
      if (last > String(day[7])) day[7] = last;
    }
  }
  return [...days.keys()].sort().map((key) => days.get(key)!);
}

/** Raw rows matching an object's rollups: each hour's events spread from its first_seen to its last_seen. */
async function seedRawEvents(
  writer: BulkWriter,
  workspaceId: string,
  rank: number,
  rollups: (string | number)[],
): Promise<number> {
  const rng = random(rank);
  const key = objectAt(rank);
  let count = 0;
  for (let i = 0; i < rollups.length; i += ROLLUP_COLUMNS) {
    const [, , , eventName, , events, firstSeen, lastSeen] = rollups.slice(
      i,
      i + ROLLUP_COLUMNS,
    ) as RollupValues;
    const first = Date.parse(firstSeen);
    const step = events > 1 ? (Date.parse(lastSeen) - first) / (events - 1) : 0;
    for (let n = 0; n < events; n++) {
      const at = new Date(first + Math.round(n * step)).toISOString();
      const row: AppEventsTable = {
        workspace_id: workspaceId,
        id: newId('aev'),
        event_id: `seed-${rank}-${count}`,
        app: key.app,
        event_name: eventName,
        object_type: key.object_type,
        object_id: key.object_id,
        properties: JSON.stringify(propertiesOf(rng, key)),
        user_id: `usr_${Math.floor(rng() * 200_000)}`,
        anonymous_id: null,
        session_id: `ses_${Math.floor(rng() * 1e9).toString(36)}`,
        page_url: `https://shop.example.com/${key.object_type}s/${key.object_id}`,
        referrer: null,
        locale: 'en-US',
        timezone: 'Europe/Berlin',
        user_agent: 'bench',
        source_type: 'api_key',
        source_id: 'bench-seed',
        warnings: null,
        occurred_at: at,
        received_at: at,
      };
      await writer.add(
        EVENTS,
        EVENT_COLUMNS.map((c) => row[c]),
      );
      count++;
    }
  }
  return count;
}
