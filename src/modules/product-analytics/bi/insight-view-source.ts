// The source of an insight view: checked when saved, read when refreshed. An object_analytics source is
// an Object Analytics slice (Promote to BI) read through the Object Analytics page; a bi_template or
// bi_dataset source is a query definition (the view's dimensions and measures plus the source's query)
// run through the Custom BI core, as the view's author for metric governance.
import type { Kysely } from 'kysely';
import { type FieldError, ServiceError, validationFailed } from '../../../core/errors.ts';
import type { Dialect } from '../../../db/database.ts';
import type { DB } from '../../../db/tables.ts';
import { resolveWindow } from '../app-event-window.ts';
import { objectAnalyticsRows } from '../object-analytics.ts';
import type { InsightSource } from './bi-object-schemas.ts';
import type { RefreshRead } from './object-refresh.ts';
import type { Measure, QueryDefinition } from './query-definition.ts';
import { type OutputColumn, prepareQuery, runQueryDefinition } from './run-query.ts';
import { findTemplate } from './templates.ts';

const OA_FIELDS = ['app', 'object_type', 'object_id', 'event_name', 'window', 'from', 'to', 'sort', 'limit'];
const BI_FIELDS = ['dataset_key', 'query'];
export const OA_DIMENSIONS = ['app', 'object_type', 'object_id'] as const;
const OA_MEASURES: Record<string, OutputColumn['type']> = {
  events: 'integer',
  unique_actors: 'integer',
  first_seen: 'timestamp',
  last_seen: 'timestamp',
};
const DEFAULT_OA_LIMIT = 25;

export interface ViewDefinition {
  source: InsightSource;
  dimensions: string[];
  measures: Measure[];
}

interface Env {
  dialect: Dialect;
  now: string;
  /** The view's author: a draft metric is usable by its creator's views only. */
  author: string | null;
}

/** The query definition of a BI source. */
const biDefinition = (view: ViewDefinition): QueryDefinition => ({
  ...(view.source.query ?? {}),
  dataset_key: view.source.dataset_key!,
  dimensions: view.dimensions,
  measures: view.measures,
});

/** Names a core validation error by the view's fields: dimensions and measures, else source.query.<field>. */
function asViewFields(thrown: unknown): never {
  if (thrown instanceof ServiceError && thrown.code === 'validation_failed' && thrown.extras.field_errors) {
    throw validationFailed(
      thrown.extras.field_errors.map((e) => ({
        ...e,
        field: /^(dimensions|measures)\b/.test(e.field)
          ? e.field
          : e.field === 'dataset_key'
            ? 'source.dataset_key'
            : `source.query.${e.field}`,
      })),
      thrown.message,
    );
  }
  throw thrown;
}

/**
 * Checks a view's source, dimensions and measures and fills their defaults (Object Analytics: every
 * dimension, events and unique_actors; BI: the definition as run, the dataset's default query included).
 */
export async function checkView(db: Kysely<DB>, workspaceId: string, view: ViewDefinition, env: Env) {
  const { source } = view;
  const isOA = source.type === 'object_analytics';
  const errors: FieldError[] = [];
  for (const field of isOA ? BI_FIELDS : OA_FIELDS) {
    if ((source as Record<string, unknown>)[field] !== undefined) {
      errors.push({ field: `source.${field}`, message: `is not a field of a ${source.type} source` });
    }
  }
  if (isOA) {
    const dims = view.dimensions.length ? view.dimensions : [...OA_DIMENSIONS];
    for (const [i, d] of dims.entries()) {
      if (!(OA_DIMENSIONS as readonly string[]).includes(d)) {
        errors.push({ field: `dimensions[${i}]`, message: `must be one of ${OA_DIMENSIONS.join(', ')}` });
      }
    }
    const measures = view.measures.length
      ? view.measures
      : [{ column: 'events' }, { column: 'unique_actors' }];
    for (const [i, m] of measures.entries()) {
      if (!m.column || !(m.column in OA_MEASURES) || m.aggregate || m.metric || m.as) {
        errors.push({
          field: `measures[${i}]`,
          message: `an Object Analytics measure is {column} with column one of ${Object.keys(OA_MEASURES).join(', ')}`,
        });
      }
    }
    if (errors.length) throw validationFailed(errors);
    try {
      resolveWindow(source, env.now);
    } catch (thrown) {
      if (thrown instanceof ServiceError && thrown.extras.field_errors) {
        throw validationFailed(thrown.extras.field_errors.map((e) => ({ ...e, field: `source.${e.field}` })));
      }
      throw thrown;
    }
    return { source, dimensions: dims, measures };
  }
  const key = source.dataset_key;
  if (!key) errors.push({ field: 'source.dataset_key', message: `is required for a ${source.type} source` });
  else if (source.type === 'bi_template' && !findTemplate(key)) {
    errors.push({ field: 'source.dataset_key', message: `is not a template (GET /v1/bi/templates): ${key}` });
  } else if (source.type === 'bi_dataset' && findTemplate(key)) {
    errors.push({ field: 'source.dataset_key', message: 'is a template: use a bi_template source' });
  }
  if (errors.length) throw validationFailed(errors);
  const compiled = await prepareQuery(db, workspaceId, biDefinition(view), {
    dialect: env.dialect,
    now: env.now,
    credentialId: env.author,
  }).catch(asViewFields);
  const { dataset_key: _k, dimensions, measures, ...query } = compiled.definition;
  return {
    source: { type: source.type, dataset_key: key, query },
    dimensions: dimensions ?? [],
    measures: measures ?? [],
  };
}

/** Reads a view's rows now. `db` reads: heavy-read connections (or a run's reads). */
export async function readView(
  db: Kysely<DB>,
  workspaceId: string,
  view: ViewDefinition,
  env: Env,
): Promise<RefreshRead> {
  const { source } = view;
  if (source.type !== 'object_analytics') {
    const { compiled, result } = await runQueryDefinition(db, workspaceId, biDefinition(view), {
      dialect: env.dialect,
      now: env.now,
      credentialId: env.author,
    });
    return { result, metrics: compiled.metrics.map((m) => m.id) };
  }
  // A relative window slides: it ends at the refresh's hour.
  const window = resolveWindow(source, env.now);
  const limit = source.limit ?? DEFAULT_OA_LIMIT;
  const { objects, ranked } = await objectAnalyticsRows(db, workspaceId, source, window, {
    sort: source.sort ?? 'events',
    limit,
  });
  const measures = view.measures.map((m) => m.column!);
  const columns: OutputColumn[] = [
    ...view.dimensions.map((name) => ({ name, type: 'string' as const, role: 'dimension' as const })),
    ...measures.map((name) => ({ name, type: OA_MEASURES[name]!, role: 'measure' as const })),
  ];
  const rows = objects.map((o) => {
    const row: Record<string, string | number> = {};
    for (const c of columns) row[c.name] = o[c.name as keyof typeof o] as string | number;
    return row;
  });
  return { result: { columns, rows, row_count: rows.length, truncated: ranked.length > limit }, metrics: [] };
}
