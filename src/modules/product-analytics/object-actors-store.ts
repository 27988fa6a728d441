// Unique actors of the objects of a page (the grouped view's, or one drill-down): the union of their daily
// sketches over the window's UTC days. Every function takes the workspace ID.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/tables.ts';
import { type ActorSketch, emptySketch, estimate, mergeEncoded } from './actor-sketch.ts';
import {
  keyArrays,
  objectKeyText as keyOf,
  noIndex,
  type ObjectKey,
  type WindowText,
} from './object-analytics-store.ts';

/**
 * Distinct actors of each object over the UTC days the window touches: the union of its daily sketches
 * (exact up to 512 actors a day, HyperLogLog beyond; actor-sketch.ts).
 */
export async function uniqueActors(
  db: Kysely<DB>,
  workspaceId: string,
  keys: ObjectKey[],
  window: WindowText,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!keys.length) return out;
  let rows: (ObjectKey & { sketch: Uint8Array })[];
  if (isPostgres(db)) {
    ({ rows } = await sql<
      ObjectKey & { sketch: Uint8Array }
    >`select k.app, k.object_type, k.object_id, s.sketch
      from ${keyArrays(keys)} cross join lateral (
        select sketch from app_event_actor_sketches s
        where s.workspace_id = ${workspaceId} and s.app = k.app and s.object_type = k.object_type
          and s.object_id = k.object_id and s.day >= ${window.fromDay} and s.day <= ${window.toDay}
        -- Not pulled up into a plain join, which could hash every sketch of the workspace.
        offset 0) s`.execute(db));
  } else {
    const branches = keys.map((key) =>
      db
        .selectFrom('app_event_actor_sketches')
        .select(['app', 'object_type', 'object_id', 'sketch'])
        .where('workspace_id', '=', workspaceId)
        .where('app', '=', key.app)
        .where('object_type', '=', key.object_type)
        .where('object_id', '=', key.object_id)
        .where(noIndex('day'), '>=', window.fromDay)
        .where(noIndex('day'), '<=', window.toDay),
    );
    rows = await branches
      .slice(1)
      .reduce((all, branch) => all.unionAll(branch), branches[0]!)
      .execute();
  }
  const unions = new Map<string, ActorSketch>();
  for (const row of rows) {
    const key = keyOf(row);
    unions.set(key, mergeEncoded(unions.get(key) ?? emptySketch(), row.sketch));
  }
  for (const [key, sketch] of unions) out.set(key, estimate(sketch));
  return out;
}
