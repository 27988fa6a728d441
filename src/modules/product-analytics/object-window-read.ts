// The grouped view's ranking from a snapshot (app_event_object_windows), exact: an object's events are its
// snapshot count plus the rollups of the hours newer than the snapshot, minus those of the hours that left the
// window since; objects with late changes (app_event_late_rollups) are summed from rollups. Objects nothing
// touched keep their snapshot value and order, so a page needs the next `limit` untouched snapshot rows and
// the touched objects, whose number is bounded by the few hours at the window's edges.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';
import { HOUR, HOURS_OF, iso, type Window, type WindowName, windowText } from './app-event-window.ts';
import type { ObjectFilters, ObjectKey, RankAfter, RankSort } from './object-analytics-store.ts';
import {
  edgeDeltas,
  lateObjects,
  objectSums,
  type SnapshotRow,
  scanSnapshot,
  snapshotPlans,
  snapshotState,
} from './object-window-read-store.ts';
import { SNAPSHOT_WINDOWS, type SnapshotWindow } from './object-window-store.ts';

/** A snapshot older than this (before the window's current hour) is not used: the edges would grow. */
const MAX_AGE = 4 * HOUR;

const keyOf = (row: ObjectKey) => JSON.stringify([row.app, row.object_type, row.object_id]);

/** Text order of the databases (SQLite's binary, PostgreSQL's C collation): code points, not UTF-16 units. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (code points above U+FFFF) sort after U+E000..U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Sort order of the grouped view: the value descending, then app, object_type, object_id ascending. */
function compare(sort: RankSort, a: SnapshotRow | RankAfter, b: SnapshotRow | RankAfter): number {
  const va = 'value' in a ? a.value : a[sort];
  const vb = 'value' in b ? b.value : b[sort];
  const byValue = sort === 'events' ? Number(vb) - Number(va) : compareText(String(vb), String(va));
  return (
    byValue ||
    compareText(a.app, b.app) ||
    compareText(a.object_type, b.object_type) ||
    compareText(a.object_id, b.object_id)
  );
}

function isSnapshotWindow(name: WindowName | undefined): name is SnapshotWindow {
  return (SNAPSHOT_WINDOWS as readonly string[]).includes(name ?? '');
}

/**
 * Up to `limit` objects after `after`, ranked, from the window's snapshot; undefined when the request cannot
 * use one (not a 7d/30d/90d window, an event_name filter, no snapshot, or one too old): rank with rollups then.
 */
export async function rankFromSnapshot(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters & { window?: WindowName },
  window: Window,
  sort: RankSort,
  after: RankAfter | undefined,
  limit: number,
): Promise<SnapshotRow[] | undefined> {
  const name = filters.window;
  if (!isSnapshotWindow(name) || filters.event_name !== undefined) return undefined;
  // On one connection whose plans do not depend on the generation's missing statistics (PostgreSQL); every
  // read of the ranking goes through it, none waits for a second connection of the pool.
  return snapshotPlans(db, (pinned) =>
    rank(pinned, workspaceId, { ...filters, window: name }, window, sort, after, limit),
  );
}

async function rank(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters & { window: SnapshotWindow },
  window: Window,
  sort: RankSort,
  after: RankAfter | undefined,
  limit: number,
): Promise<SnapshotRow[] | undefined> {
  const name = filters.window;
  const state = await snapshotState(db, workspaceId, name);
  if (state === undefined) return undefined;
  const asOf = Date.parse(state.as_of_hour);
  // Snapshot rows are those of the generation the state names.
  const generation = state.generation;
  const span = HOURS_OF[name] * HOUR;
  const current = window.to - HOUR;
  if (asOf > current || current - asOf > MAX_AGE || window.from !== current - span) return undefined;

  const [deltas, late] = await Promise.all([
    edgeDeltas(
      db,
      workspaceId,
      generation,
      filters,
      { from: iso(asOf), to: iso(window.to) },
      { from: iso(asOf - span), to: iso(window.from) },
    ),
    // Changes marked from the hour after as_of_hour on: every change the snapshot missed (object-window-store.ts).
    lateObjects(db, workspaceId, filters, iso(asOf + HOUR), { from: iso(asOf - span), to: iso(asOf) }),
  ]);
  const touched = new Set(late.map(keyOf));
  const exact: SnapshotRow[] = [];
  for (const row of deltas) {
    const key = keyOf(row);
    if (touched.has(key)) continue;
    touched.add(key);
    const events = (row.snapshot_events ?? 0) + row.delta;
    // Events left: the newest hour's last_seen, else the snapshot's, which then lies in a remaining hour.
    const lastSeen = row.newest ?? row.snapshot_last_seen;
    if (events > 0 && lastSeen !== null) exact.push({ ...keyFields(row), events, last_seen: lastSeen });
  }
  const text = windowText(window);
  for (const row of await objectSums(db, workspaceId, late, text)) {
    if (row.events > 0) exact.push(row);
  }

  // Untouched snapshot rows keep their value and order; touched ones are all in `exact`. Scan the snapshot in
  // order, in growing chunks, until the rows found and the exact rows ranked above the scan's position fill
  // the page: the busiest objects are usually touched, so counting only untouched rows would scan far.
  const ranked = exact
    .filter((row) => after === undefined || compare(sort, row, after) > 0)
    .sort((a, b) => compare(sort, a, b));
  const untouched: SnapshotRow[] = [];
  let chunk = limit * 4;
  let position = after;
  for (;;) {
    const rows = await scanSnapshot(db, workspaceId, generation, filters, sort, position, chunk);
    for (const row of rows) if (!touched.has(keyOf(row))) untouched.push(row);
    if (rows.length < chunk || untouched.length >= limit) break;
    const last = rows[rows.length - 1]!;
    position = { ...keyFields(last), value: last[sort] };
    const above = ranked.findIndex((row) => compare(sort, row, position!) > 0);
    if ((above === -1 ? ranked.length : above) + untouched.length >= limit) break;
    chunk *= 4;
  }
  return [...untouched.slice(0, limit), ...ranked.slice(0, limit)]
    .sort((a, b) => compare(sort, a, b))
    .slice(0, limit);
}

const keyFields = (row: ObjectKey): ObjectKey => ({
  app: row.app,
  object_type: row.object_type,
  object_id: row.object_id,
});
