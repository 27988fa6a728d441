// Pre-aggregated sources of BI templates (docs/modules/bi.md, "The daily call-event rollup"). A template
// may declare a rollup: a source with the template's column names where each row stands for `weight` raw
// rows, e.g. the whole UTC days of call_event_days UNION ALL the raw call events outside them. A query is
// answered from it only when that is exact: every dimension and filter column is one each rollup row holds a
// single value of, every measure has a weighted form, time is bucketed by whole UTC days or coarser and every
// time bound is a UTC midnight. Otherwise planRollup answers undefined and the raw source runs as before.
import { type RawBuilder, sql } from 'kysely';
import type { CheckedFilter } from './filters.ts';
import { aggregateSql } from './metric-expression.ts';
import type { Aggregate, QueryDefinition } from './query-definition.ts';
import type { Source } from './template-sources.ts';
import type { BiColumn, BiTemplate } from './templates.ts';

export interface TemplateRollup {
  source: Source;
  /** Columns each rollup row holds one value of (all its raw rows share it). */
  keys: readonly string[];
  /** Measure columns (never null in the raw rows) -> the source column holding their sum per row. */
  sums: Readonly<Record<string, string>>;
  /** The source column of how many raw rows a row stands for (1 for a raw row). */
  weight: string;
  /** The time column; a rollup row's is the UTC midnight starting its day. */
  time: string;
}

export interface RollupPlan {
  source: Source;
  /** The weighted form of an aggregate (a count is a sum of weights, an average a sum over them). */
  aggregate(fn: Aggregate, column: string | undefined): RawBuilder<unknown>;
}

interface TimeSpec {
  /** The query's canonical time zone. */
  zone: string | undefined;
  range: { from: string | null; to: string | null } | null;
  timeName: string;
}

const ref = (column: string) => sql.ref(`t.${column}`);
const isMidnight = (value: unknown) => typeof value === 'string' && /T00:00:00\.000Z$/.test(value);

/** Whether `fn` over `column` has an exact weighted form in the rollup. */
function measurable(rollup: TemplateRollup, fn: Aggregate, column: string | undefined): boolean {
  const key = column !== undefined && rollup.keys.includes(column);
  const summed = column !== undefined && column in rollup.sums;
  if (fn === 'count') return column === undefined || key || summed || column === rollup.time;
  if (fn === 'sum' || fn === 'avg') return key || summed;
  // min, max and count_distinct of a key are those of its rows; of a sum they are not.
  return key;
}

/** A time bound the rollup answers exactly: from (>=) and to (<) at a UTC midnight. */
function exactTimeFilter(filter: CheckedFilter): boolean {
  return (filter.operator === 'gte' || filter.operator === 'lt') && isMidnight(filter.values[0]);
}

/** The rollup plan of a query over `template`, or undefined when only the raw source answers it exactly. */
export function planRollup(
  template: BiTemplate,
  columns: ReadonlyMap<string, BiColumn>,
  definition: QueryDefinition,
  filters: readonly CheckedFilter[],
  time: TimeSpec,
): RollupPlan | undefined {
  const rollup = template.rollup;
  if (!rollup) return undefined;
  const keys = new Set(rollup.keys);
  if (!(definition.dimensions ?? []).every((d) => keys.has(d))) return undefined;
  for (const f of filters) {
    if (!keys.has(f.column.name) && !(f.column.name === rollup.time && exactTimeFilter(f))) return undefined;
  }
  for (const m of definition.measures ?? []) {
    if (m.metric || !m.aggregate || !measurable(rollup, m.aggregate, m.column)) return undefined;
    // Money sums are grouped by their currency: only exact when the currency is a key too.
    const currency = m.column ? columns.get(m.column)?.currency_column : undefined;
    if (currency && !keys.has(currency)) return undefined;
  }
  const timed = Boolean(definition.time_column || definition.time_range || definition.time_grain);
  if (timed && time.timeName !== rollup.time) return undefined;
  if (definition.time_grain) {
    if (definition.time_grain === 'hour' || time.zone !== 'UTC') return undefined;
  }
  if (time.range && [time.range.from, time.range.to].some((bound) => bound !== null && !isMidnight(bound)))
    return undefined;
  return { source: rollup.source, aggregate: (fn, column) => weighted(rollup, fn, column) };
}

function weighted(rollup: TemplateRollup, fn: Aggregate, column: string | undefined): RawBuilder<unknown> {
  const weight = ref(rollup.weight);
  const summed = column === undefined ? undefined : rollup.sums[column];
  // The weight of the rows where the column is set (a sum column never is null).
  const present =
    column === undefined || summed || column === rollup.time
      ? weight
      : sql`case when ${ref(column)} is not null then ${weight} else 0 end`;
  switch (fn) {
    case 'count':
      return sql`coalesce(sum(${present}), 0)`;
    case 'sum':
      return summed
        ? sql`coalesce(sum(${ref(summed)}), 0)`
        : sql`coalesce(sum(${ref(column!)} * ${weight}), 0)`;
    case 'avg': {
      const total = summed ? sql`sum(${ref(summed)})` : sql`sum(${ref(column!)} * ${weight})`;
      return sql`(${total} * 1.0 / nullif(sum(${present}), 0))`;
    }
    default:
      return aggregateSql(fn, ref(column!));
  }
}

const state = (column: 'rolled_from' | 'rolled_until') =>
  sql`(select ${sql.ref(column)} from call_event_days_state where id = 'call_events')`;
// The raw arms' open ends, as subqueries too: with both ends of a range unknown when it plans, PostgreSQL
// estimates a narrow range and reads the (workspace_id, occurred_at) index; with one end it assumes a third
// of the workspace's rows and scans the partitions instead (83 ms instead of 17 ms over a month partition
// of 1M rows).
const NO_FLOOR = sql.raw("(select cast('' as text))");
const NO_CEILING = sql.raw("(select cast('9999-12-31T23:59:59.999Z' as text))");
const failed = (status: string) => sql<number>`case when ${sql.ref(status)} >= 400 then 1 else 0 end`;

/**
 * usage_activation and api_usage over whole days: the days call_event_days covers, UNION ALL the raw call
 * events before and after them. Which days are covered is read in the same statement (one snapshot), so a
 * rollup committing meanwhile never makes a day count twice or not at all.
 */
const callEventDaysSource: Source = (db, workspaceId) => {
  const raw = (inRange: RawBuilder<boolean>) =>
    db
      .selectFrom('call_events as c')
      .where('c.workspace_id', '=', workspaceId)
      .where(inRange)
      .select([
        'c.kind as event_type',
        'c.route as route',
        'c.method as method',
        'c.credential_path as credential_path',
        'c.http_status as http_status',
        'c.error_code as error_code',
        failed('c.http_status').as('failed'),
        'c.units as units',
        'c.billed_units as billed_units',
        'c.duration_ms as duration_ms',
        'c.occurred_at as occurred_at',
        sql<number>`cast(1 as bigint)`.as('rolled_calls'),
        failed('c.http_status').as('rolled_failed'),
      ]);
  return db
    .selectFrom('call_event_days as d')
    .where('d.workspace_id', '=', workspaceId)
    .where(sql<boolean>`d.day >= ${state('rolled_from')} and d.day < ${state('rolled_until')}`)
    .select([
      'd.kind as event_type',
      'd.route as route',
      'd.method as method',
      'd.credential_path as credential_path',
      'd.http_status as http_status',
      'd.error_code as error_code',
      failed('d.http_status').as('failed'),
      'd.units as units',
      'd.billed_units as billed_units',
      'd.duration_ms as duration_ms',
      'd.day as occurred_at',
      'd.calls as rolled_calls',
      'd.failed_calls as rolled_failed',
    ])
    .unionAll(
      raw(sql<boolean>`c.occurred_at >= ${state('rolled_until')} and c.occurred_at < ${NO_CEILING}`) as any,
    )
    .unionAll(
      raw(sql<boolean>`c.occurred_at >= ${NO_FLOOR} and c.occurred_at < ${state('rolled_from')}`) as any,
    );
};

/** The rollup of the call-event templates (migration 0027, bi/call-event-days-job.ts). */
export const callEventRollup: TemplateRollup = {
  source: callEventDaysSource,
  keys: ['event_type', 'route', 'method', 'credential_path', 'http_status', 'error_code', 'failed'],
  sums: { units: 'units', billed_units: 'billed_units', duration_ms: 'duration_ms', failed: 'rolled_failed' },
  weight: 'rolled_calls',
  time: 'occurred_at',
};
