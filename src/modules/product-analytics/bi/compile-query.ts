// Compiles a query definition over a dataset into one query of the builder: every name is checked against
// the dataset's governed columns first (validation_failed naming the field), then the template's source
// is read as subquery t with the filters, range, groups, aggregates and order of the definition.
import { type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import type { Dialect } from '../../../db/database.ts';
import type { DB } from '../../../db/tables.ts';
import { canonicalTimeZone } from '../../calendar/zoned-time.ts';
import { aggregateAllowed, aggregateType, type OutputType } from './aggregates.ts';
import type { MetricFormat } from './bi-tables.ts';
import { type CheckedFilter, checkFilter, filterCondition } from './filters.ts';
import { aggregateSql, compileMetric, type MetricAst, metricColumns } from './metric-expression.ts';
import { DEFAULT_QUERY_LIMIT, type Filter, type QueryDefinition } from './query-definition.ts';
import { planRollup } from './rollup-source.ts';
import type { BiColumn, BiTemplate } from './templates.ts';
import { bucketLabel, resolveRelative } from './time-buckets.ts';

/** A template, or a custom dataset narrowed from one (its columns, its fixed filters). */
export interface ResolvedDataset {
  key: string;
  /** The custom dataset's ID; null for a template. */
  id: string | null;
  template: BiTemplate;
  columns: BiColumn[];
  fixedFilters: Filter[];
}

/** A metric a query may use (governance is checked where it is loaded: bi-metric-store.ts). */
export interface ResolvedMetric {
  id: string;
  key: string;
  ast: MetricAst;
  format: MetricFormat;
}

export interface OutputColumn {
  name: string;
  type: OutputType;
  role: 'dimension' | 'time' | 'measure';
  /** Money results: the result column with their currency. */
  currency_column?: string;
  /** For metrics: the metric key. */
  metric?: string;
}

export interface CompiledBiQuery {
  /** The definition as run: the dataset's default query filled in, the limit applied. */
  definition: QueryDefinition & { limit: number };
  columns: OutputColumn[];
  /** Group keys (dimensions and time bucket) by result name: exports page over them. */
  keys: { name: string; expr: Expression<unknown> }[];
  /** Filtered, grouped and selected; order and limit are added by the runner. */
  base: SelectQueryBuilder<any, any, any>;
  order: { name: string; direction: 'asc' | 'desc' }[];
  /** The range the time column was narrowed to (ISO), if any. */
  range: { from: string | null; to: string | null } | null;
  /** Metrics used, for the run's related objects. */
  metrics: ResolvedMetric[];
}

export interface CompileOptions {
  db: Kysely<DB>;
  dialect: Dialect;
  workspaceId: string;
  now: string;
  metrics: ReadonlyMap<string, ResolvedMetric>;
}

const ref = (column: string) => sql.ref(`t.${column}`);

/** The dataset's default query when the definition asks for no dimensions, measures or grain. */
function withDefaults(definition: QueryDefinition, dataset: ResolvedDataset): QueryDefinition {
  if (definition.dimensions?.length || definition.measures?.length || definition.time_grain)
    return definition;
  const names = new Set(dataset.columns.map((c) => c.name));
  const fallback = dataset.template.default_query;
  const usable =
    (fallback.dimensions ?? []).every((d) => names.has(d)) &&
    (fallback.measures ?? []).every((m) => !m.column || names.has(m.column)) &&
    (!(fallback.time_range || fallback.time_grain) || names.has(dataset.template.time_column));
  const defaults = usable ? fallback : { measures: [{ aggregate: 'count' as const, as: 'rows' }] };
  return { ...defaults, ...definition, dimensions: defaults.dimensions, measures: defaults.measures };
}

export function compileQuery(
  input: QueryDefinition,
  dataset: ResolvedDataset,
  options: CompileOptions,
): CompiledBiQuery {
  const definition = withDefaults(input, dataset);
  const errors: FieldError[] = [];
  const columns = new Map(dataset.columns.map((c) => [c.name, c]));
  const zone = canonicalTimeZone(definition.timezone ?? 'UTC');
  if (!zone) errors.push({ field: 'timezone', message: 'is not an IANA time zone name' });

  const filters: CheckedFilter[] = [];
  // A dataset's own filters may read template columns it does not expose (won deals without stage_kind).
  const templateColumns = new Map(dataset.template.columns.map((c) => [c.name, c]));
  for (const [i, f] of dataset.fixedFilters.entries()) {
    const checked = checkFilter(f, templateColumns, `dataset.filters[${i}]`, errors);
    if (checked) filters.push(checked);
  }
  for (const [i, f] of (definition.filters ?? []).entries()) {
    const checked = checkFilter(f, columns, `filters[${i}]`, errors);
    if (checked) filters.push(checked);
  }

  // Time column and range.
  const timeName = definition.time_column ?? dataset.template.time_column;
  const timeColumn = columns.get(timeName);
  const timed = Boolean(definition.time_column || definition.time_range || definition.time_grain);
  if (timed && timeColumn?.type !== 'timestamp') {
    errors.push({ field: 'time_column', message: `is not a timestamp column of the dataset: ${timeName}` });
  }
  let range: CompiledBiQuery['range'] = null;
  const tr = definition.time_range;
  if (tr) {
    if (tr.relative && (tr.from || tr.to)) {
      errors.push({ field: 'time_range', message: 'takes relative or from/to, not both' });
    } else if (tr.relative) {
      const r = resolveRelative(tr.relative, zone ?? 'UTC', Date.parse(options.now));
      range = { from: r.from, to: r.to };
    } else if (!tr.from && !tr.to) {
      errors.push({ field: 'time_range', message: 'needs relative, from or to' });
    } else {
      range = {
        from: tr.from ? new Date(tr.from).toISOString() : null,
        to: tr.to ? new Date(tr.to).toISOString() : null,
      };
      if (range.from && range.to && range.from >= range.to) {
        errors.push({ field: 'time_range.to', message: 'must be after from' });
      }
    }
  }
  if (definition.time_grain && !(range?.from && range.to)) {
    errors.push({ field: 'time_range', message: 'with both ends (or relative) is required with time_grain' });
  }

  // A pre-aggregated source when it answers this query exactly (its aggregates are then weighted).
  const rollup = planRollup(dataset.template, columns, definition, filters, { zone, range, timeName });

  // Dimensions, then the time bucket.
  const output: OutputColumn[] = [];
  const keys: CompiledBiQuery['keys'] = [];
  const taken = new Set<string>();
  const claim = (name: string, field: string): boolean => {
    if (taken.has(name)) {
      errors.push({ field, message: `names the result column ${name} twice; set "as" to tell them apart` });
      return false;
    }
    taken.add(name);
    return true;
  };
  const addDimension = (name: string, field: string) => {
    const column = columns.get(name);
    if (!column) return void errors.push({ field, message: `is not a column of the dataset: ${name}` });
    if (!claim(name, field)) return;
    // Dimensions lead the result (a currency added for money comes after the asked ones).
    output.splice(output.filter((o) => o.role === 'dimension').length, 0, {
      name,
      type: column.type,
      role: 'dimension',
    });
    keys.push({ name, expr: ref(name) });
  };
  for (const [i, name] of (definition.dimensions ?? []).entries()) addDimension(name, `dimensions[${i}]`);

  // Measures (and the currency every money aggregate is grouped by).
  const selections: { name: string; expr: RawBuilder<unknown> }[] = [];
  const currencies: { name: string; field: string }[] = [];
  const usedMetrics: ResolvedMetric[] = [];
  for (const [i, m] of (definition.measures ?? []).entries()) {
    const field = `measures[${i}]`;
    if (m.metric) {
      if (m.column || m.aggregate) {
        errors.push({ field, message: 'takes a metric, or a column with an aggregate, not both' });
        continue;
      }
      const metric = options.metrics.get(m.metric);
      if (!metric) {
        errors.push({
          field: `${field}.metric`,
          message: `is not a usable metric of this dataset: ${m.metric}`,
        });
        continue;
      }
      const read = metricColumns(metric.ast);
      const missing = [...read.aggregated, ...read.filtered].filter((c) => !columns.has(c));
      if (missing.length) {
        errors.push({
          field: `${field}.metric`,
          message: `reads columns this dataset lacks: ${missing.join(', ')}`,
        });
        continue;
      }
      // A metric reading money (aggregated or compared in a filter) is grouped by that money's currency.
      let currency: string | undefined;
      for (const c of [...read.aggregated, ...read.filtered]) {
        const own = columns.get(c)!.currency_column;
        if (own && read.aggregated.includes(c)) currency ??= own;
        if (own) currencies.push({ name: own, field: `${field}.metric` });
      }
      const name = m.as ?? metric.key;
      if (!claim(name, `${field}.as`)) continue;
      usedMetrics.push(metric);
      const money = metric.format === 'money';
      output.push({
        name,
        type: money ? 'money' : 'number',
        role: 'measure',
        metric: metric.key,
        ...(money && currency ? { currency_column: currency } : {}),
      });
      selections.push({ name, expr: compileMetric(metric.ast, columns, ref) });
      continue;
    }
    if (!m.aggregate) {
      errors.push({ field: `${field}.aggregate`, message: 'is required (or give a metric)' });
      continue;
    }
    let column: BiColumn | undefined;
    if (m.column) {
      column = columns.get(m.column);
      if (!column) {
        errors.push({ field: `${field}.column`, message: `is not a column of the dataset: ${m.column}` });
        continue;
      }
      const problem = aggregateAllowed(m.aggregate, column);
      if (problem) {
        errors.push({ field: `${field}.aggregate`, message: problem });
        continue;
      }
    } else if (m.aggregate !== 'count') {
      errors.push({ field: `${field}.column`, message: `is required with ${m.aggregate}` });
      continue;
    }
    const name = m.as ?? (column ? `${m.aggregate}_${column.name}` : 'count');
    if (!claim(name, m.as ? `${field}.as` : field)) continue;
    const type = aggregateType(m.aggregate, column);
    // Every aggregate of a money column (avg, min, max, counts too) is grouped by its currency; an amount
    // (not a count) names that currency column.
    const currency = column?.currency_column;
    if (currency) currencies.push({ name: currency, field: `${field}.column` });
    const amount = currency && type !== 'integer' ? { currency_column: currency } : {};
    output.push({ name, type, role: 'measure', ...amount });
    const raw = () => (column ? aggregateSql(m.aggregate!, ref(column.name)) : sql`count(*)`);
    selections.push({ name, expr: rollup?.aggregate(m.aggregate, column?.name) ?? raw() });
  }
  // Money is summed per currency, never across: its currency column joins the groups.
  for (const { name, field } of currencies) {
    if (keys.some((k) => k.name === name)) continue;
    if (!columns.has(name)) {
      errors.push({ field, message: `aggregates money, but the dataset lacks its currency column ${name}` });
      continue;
    }
    if (taken.has(name)) {
      errors.push({ field, message: `aggregates money, and its currency column ${name} is taken as a name` });
      continue;
    }
    addDimension(name, field);
  }

  // The time bucket (after the dimensions in the result, before the measures).
  let bucket: { name: string; expr: RawBuilder<string> } | undefined;
  if (definition.time_grain && zone && range?.from && range.to && timeColumn?.type === 'timestamp') {
    const name = `${timeName}_${definition.time_grain}`;
    if (claim(name, 'time_grain')) {
      bucket = {
        name,
        expr: bucketLabel(options.dialect, ref(timeName), definition.time_grain, zone, {
          from: Date.parse(range.from),
          to: Date.parse(range.to),
        }),
      };
      keys.push(bucket);
    }
  }
  const dimensionCount = output.filter((o) => o.role === 'dimension').length;
  if (bucket) output.splice(dimensionCount, 0, { name: bucket.name, type: 'string', role: 'time' });

  // Order: as asked, then the group keys (so the order is total and runs repeat it).
  const order: CompiledBiQuery['order'] = [];
  for (const [i, s] of (definition.sort ?? []).entries()) {
    if (!output.some((o) => o.name === s.column)) {
      errors.push({ field: `sort[${i}].column`, message: `is not a result column: ${s.column}` });
    } else order.push({ name: s.column, direction: s.direction ?? 'asc' });
  }
  if (errors.length) throw validationFailed(errors);
  if (!definition.sort?.length) {
    const firstMeasure = output.find((o) => o.role === 'measure');
    if (bucket) order.push({ name: bucket.name, direction: 'asc' });
    else if (firstMeasure) order.push({ name: firstMeasure.name, direction: 'desc' });
  }
  for (const key of keys)
    if (!order.some((o) => o.name === key.name)) order.push({ name: key.name, direction: 'asc' });

  let base = (options.db as unknown as Kysely<any>).selectFrom(
    (rollup?.source ?? dataset.template.source)(options.db, options.workspaceId, options.now).as('t'),
  );
  for (const f of filters) base = base.where(filterCondition(options.dialect, f, ref(f.column.name)));
  if (range?.from) base = base.where(ref(timeName), '>=', range.from);
  if (range?.to) base = base.where(ref(timeName), '<', range.to);
  const selected = base.select([
    ...keys.filter((k) => k !== bucket).map((k) => (k.expr as RawBuilder<unknown>).as(k.name)),
    ...(bucket ? [bucket.expr.as(bucket.name)] : []),
    ...selections.map((s) => s.expr.as(s.name)),
  ]);
  const grouped = keys.length ? selected.groupBy(keys.map((k) => k.expr)) : selected;
  return {
    definition: { ...definition, limit: definition.limit ?? DEFAULT_QUERY_LIMIT },
    columns: output,
    keys,
    base: grouped,
    order,
    range,
    metrics: usedMetrics,
  };
}
