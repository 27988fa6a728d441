import type { Kysely } from 'kysely';
import { validationFailed } from '../../core/errors.ts';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
  MAX_PAGE_SIZE,
  matchesText,
  type Page,
  type PageRequest,
} from '../../core/pagination.ts';
import type { DB } from '../../db/tables.ts';
import { type DealStage, dealStageRecord, type StageKind } from './crm-records.ts';

/**
 * The built-in stages exist in every workspace without being stored: they are constants, so a new
 * workspace needs no seeding and they cannot be renamed or removed. Positions leave room for custom stages.
 */
export const BUILT_IN_STAGES = [
  { key: 'new', name: 'New', position: 10, kind: 'open', probability: 10 },
  { key: 'qualified', name: 'Qualified', position: 20, kind: 'open', probability: 25 },
  { key: 'proposal', name: 'Proposal', position: 30, kind: 'open', probability: 50 },
  { key: 'won', name: 'Won', position: 90, kind: 'won', probability: 100 },
  { key: 'lost', name: 'Lost', position: 100, kind: 'lost', probability: 0 },
] as const satisfies readonly {
  key: string;
  name: string;
  position: number;
  kind: StageKind;
  probability: number;
}[];

export const BUILT_IN_KEYS: readonly string[] = BUILT_IN_STAGES.map((s) => s.key);

const builtInResources: DealStage[] = BUILT_IN_STAGES.map((s) => ({
  id: `dstg_${s.key}`,
  key: s.key,
  name: s.name,
  position: s.position,
  kind: s.kind,
  probability: s.probability,
  color: null,
  built_in: true,
  custom_fields: {},
  created_at: null,
  updated_at: null,
}));

export async function findStageByKey(db: Kysely<DB>, workspaceId: string, key: string) {
  return db
    .selectFrom('deal_stages')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** The kind of a stage key (built-in or custom); an unknown key fails validation on `field`. */
export async function stageKind(
  db: Kysely<DB>,
  workspaceId: string,
  key: string,
  field: string,
): Promise<StageKind> {
  const builtIn = BUILT_IN_STAGES.find((s) => s.key === key);
  if (builtIn) return builtIn.kind;
  const custom = await findStageByKey(db, workspaceId, key);
  if (!custom) {
    throw validationFailed([
      { field, message: `"${key}" is not a deal stage of this workspace; list_deal_stages shows the keys` },
    ]);
  }
  return custom.kind;
}

/** Where a new stage goes when no position is given: just after the last stage of its kind. */
export async function defaultPosition(db: Kysely<DB>, workspaceId: string, kind: StageKind): Promise<number> {
  const row = await db
    .selectFrom('deal_stages')
    .select((eb) => eb.fn.max('position').as('max'))
    .where('workspace_id', '=', workspaceId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  const builtIn = Math.max(...BUILT_IN_STAGES.filter((s) => s.kind === kind).map((s) => s.position));
  return Math.max(builtIn, Number(row?.max ?? 0)) + 1;
}

// Stages are ordered by (position, built-in first, id); the cursor carries that triple.
type StageKey = [number, number, string];
const sortKey = (s: DealStage): StageKey => [s.position, s.built_in ? 0 : 1, s.id];
const after = (a: StageKey, b: StageKey) =>
  a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2];

/** Built-in and custom stages in one keyset-paginated list, ordered by position. */
export async function listStages(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string },
  page: PageRequest,
): Promise<Page<DealStage>> {
  const limit = Math.min(page.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const cursor = page.cursor
    ? (decodeCursor(page.operation, page.filters, page.cursor, ['integer', 'integer', 'string']) as StageKey)
    : undefined;
  let query = db.selectFrom('deal_stages').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.query) query = query.where(matchesText(['key', 'name'], filters.query));
  if (cursor) {
    const [position, rank, id] = cursor;
    query =
      rank === 0
        ? query.where('position', '>=', position)
        : query.where((eb) =>
            eb.or([
              eb('position', '>', position),
              eb.and([eb('position', '=', position), eb('id', '>', id)]),
            ]),
          );
  }
  const custom = (
    await query
      .orderBy('position')
      .orderBy('id')
      .limit(limit + 1)
      .execute()
  ).map(dealStageRecord.toRecord);
  const text = filters.query?.toLowerCase();
  const builtIns = builtInResources.filter(
    (s) =>
      (!text || s.key.includes(text) || s.name.toLowerCase().includes(text)) &&
      (!cursor || after(sortKey(s), cursor)),
  );
  const merged = [...builtIns, ...custom].sort((a, b) => (after(sortKey(a), sortKey(b)) ? 1 : -1));
  const items = merged.slice(0, limit);
  if (merged.length <= limit) return { items };
  const last = items[items.length - 1]!;
  return { items, next_cursor: encodeCursor(page.operation, page.filters, sortKey(last)) };
}
