// The definition of a BI query, as run_bi_query, reports and insight views take it: a dataset (a template
// or a custom dataset), dimensions, measures (a column aggregate or an approved metric), filters, a time
// range and grain. Used by the query builder and the Insight Builder.
import { api, ok, type Schemas } from '../api.ts';
import { Field } from '../ui/page.tsx';
import { Loaded, useLoad } from '../ui/states.tsx';

export type QueryDef = Schemas['BiQuery']['definition'];
type Measure = NonNullable<QueryDef['measures']>[number];
type Filter = NonNullable<QueryDef['filters']>[number];
type Column = Schemas['BiTemplate']['columns'][number];

const AGGREGATES = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'starts_with',
  'is_null',
  'is_not_null',
] as const;
const RANGES = [
  'today',
  'yesterday',
  'last_7_days',
  'last_30_days',
  'this_month',
  'last_month',
  'this_quarter',
  'this_year',
] as const;
const GRAINS = ['hour', 'day', 'week', 'month'] as const;

/** The datasets a query can read (templates and this workspace's datasets) and the approved metrics. */
export function useCatalogue() {
  return useLoad(async () => {
    const [templates, datasets, metrics] = await Promise.all([
      ok(api.GET('/v1/bi/templates')),
      ok(api.GET('/v1/bi/datasets', { params: { query: { limit: 100 } } })),
      ok(api.GET('/v1/bi/metrics', { params: { query: { status: 'approved', limit: 100 } } })),
    ]);
    const sources = [
      ...templates.templates.map((t) => ({
        key: t.key,
        name: t.name,
        columns: t.columns,
        kind: 'bi_template' as const,
      })),
      ...datasets.datasets.map((d) => ({
        key: d.key,
        name: d.name,
        columns: d.columns,
        kind: 'bi_dataset' as const,
      })),
    ];
    return { sources, metrics: metrics.metrics };
  }, []);
}

export type Catalogue = NonNullable<ReturnType<typeof useCatalogue>['data']>;

const typed = (column: Column | undefined, text: string): Filter['value'] =>
  column &&
  (column.type === 'integer' || column.type === 'money') &&
  text !== '' &&
  !Number.isNaN(Number(text))
    ? Number(text)
    : column?.type === 'boolean'
      ? text === 'true'
      : text;

export function QueryEditor({
  value,
  onChange,
  catalogue,
}: {
  value: QueryDef;
  onChange: (next: QueryDef) => void;
  catalogue: Catalogue;
}) {
  const source = catalogue.sources.find((s) => s.key === value.dataset_key);
  const columns = source?.columns ?? [];
  const set = (patch: Partial<QueryDef>) => onChange({ ...value, ...patch });
  const measures = value.measures ?? [];
  const filters = value.filters ?? [];
  const setMeasure = (i: number, m: Measure) => set({ measures: measures.map((x, j) => (j === i ? m : x)) });
  const setFilter = (i: number, f: Filter) => set({ filters: filters.map((x, j) => (j === i ? f : x)) });
  const metrics = catalogue.metrics.filter((m) => m.dataset_key === value.dataset_key);
  return (
    <div class="stack query-editor">
      <Field label="Dataset">
        <select
          value={value.dataset_key}
          onChange={(e) =>
            onChange({
              dataset_key: e.currentTarget.value,
              dimensions: [],
              measures: [{ aggregate: 'count' }],
              limit: value.limit,
            })
          }
        >
          {catalogue.sources.map((s) => (
            <option key={s.key} value={s.key}>
              {s.name} ({s.key})
            </option>
          ))}
        </select>
      </Field>
      <fieldset>
        <legend>Dimensions</legend>
        <div class="checks">
          {columns
            .filter((c) => c.role !== 'measure')
            .map((c) => (
              <label key={c.name} title={c.description}>
                <input
                  type="checkbox"
                  checked={value.dimensions?.includes(c.name)}
                  onChange={(e) =>
                    set({
                      dimensions: e.currentTarget.checked
                        ? [...(value.dimensions ?? []), c.name]
                        : (value.dimensions ?? []).filter((d) => d !== c.name),
                    })
                  }
                />
                {c.name}
              </label>
            ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Measures</legend>
        {measures.map((m, i) => (
          <div class="row" key={i}>
            <Field label={`Measure ${i + 1}`}>
              <select
                value={m.metric ? `metric:${m.metric}` : `${m.aggregate}:${m.column ?? ''}`}
                onChange={(e) => {
                  const [kind, rest] = e.currentTarget.value.split(/:(.*)/s) as [string, string];
                  setMeasure(
                    i,
                    kind === 'metric'
                      ? { metric: rest }
                      : { aggregate: kind as Measure['aggregate'], column: rest || undefined },
                  );
                }}
              >
                <option value="count:">count of rows</option>
                {columns.flatMap((c) =>
                  AGGREGATES.filter((a) => a !== 'count' || c.role !== 'measure')
                    .filter((a) => c.role === 'measure' || a === 'count_distinct')
                    .map((a) => (
                      <option key={`${a}:${c.name}`} value={`${a}:${c.name}`}>
                        {a} of {c.name}
                      </option>
                    )),
                )}
                {metrics.map((metric) => (
                  <option key={metric.key} value={`metric:${metric.key}`}>
                    metric {metric.name} ({metric.key})
                  </option>
                ))}
              </select>
            </Field>
            <button
              type="button"
              class="secondary"
              aria-label={`Remove measure ${i + 1}`}
              onClick={() => set({ measures: measures.filter((_, j) => j !== i) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() => set({ measures: [...measures, { aggregate: 'count' }] })}
        >
          Add measure
        </button>
      </fieldset>
      <fieldset>
        <legend>Filters</legend>
        {filters.map((f, i) => (
          <div class="row" key={i}>
            <Field label={`Filter ${i + 1} column`}>
              <select
                value={f.column}
                onChange={(e) => setFilter(i, { ...f, column: e.currentTarget.value })}
              >
                {columns.map((c) => (
                  <option key={c.name}>{c.name}</option>
                ))}
              </select>
            </Field>
            <Field label={`Filter ${i + 1} operator`}>
              <select
                value={f.operator}
                onChange={(e) =>
                  setFilter(i, { ...f, operator: e.currentTarget.value as Filter['operator'] })
                }
              >
                {OPERATORS.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            </Field>
            {f.operator !== 'is_null' && f.operator !== 'is_not_null' && (
              <Field label={`Filter ${i + 1} value`}>
                <input
                  value={f.value === undefined ? '' : String(f.value)}
                  onInput={(e) =>
                    setFilter(i, {
                      ...f,
                      value: typed(
                        columns.find((c) => c.name === f.column),
                        e.currentTarget.value,
                      ),
                    })
                  }
                />
              </Field>
            )}
            <button
              type="button"
              class="secondary"
              aria-label={`Remove filter ${i + 1}`}
              onClick={() => set({ filters: filters.filter((_, j) => j !== i) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          disabled={!columns.length}
          onClick={() =>
            set({ filters: [...filters, { column: columns[0]!.name, operator: 'eq', value: '' }] })
          }
        >
          Add filter
        </button>
      </fieldset>
      <div class="row">
        <Field label="Time range">
          <select
            value={value.time_range?.relative ?? ''}
            onChange={(e) => {
              const relative = e.currentTarget.value as (typeof RANGES)[number] | '';
              set({
                time_range: relative ? { relative } : undefined,
                time_grain: relative ? value.time_grain : undefined,
              });
            }}
          >
            <option value="">All time</option>
            {RANGES.map((r) => (
              <option key={r} value={r}>
                {r.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Time grain">
          <select
            value={value.time_grain ?? ''}
            disabled={!value.time_range}
            onChange={(e) =>
              set({ time_grain: (e.currentTarget.value || undefined) as QueryDef['time_grain'] })
            }
          >
            <option value="">None</option>
            {GRAINS.map((g) => (
              <option key={g}>{g}</option>
            ))}
          </select>
        </Field>
        <Field label="Row limit">
          <input
            type="number"
            min={1}
            max={1000}
            value={value.limit ?? 25}
            onInput={(e) => set({ limit: Number(e.currentTarget.value) || undefined })}
          />
        </Field>
      </div>
    </div>
  );
}

/** The catalogue, loaded, around an editor. */
export function WithCatalogue({
  children,
}: {
  children: (catalogue: Catalogue) => preact.ComponentChildren;
}) {
  const catalogue = useCatalogue();
  return (
    <Loaded load={catalogue} what="datasets and metrics">
      {children}
    </Loaded>
  );
}
