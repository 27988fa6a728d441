// Insight Builder: the edit form of an insight view's definition (source and its columns, report style,
// dimensions, measures; refresh behaviour follows its schedules). It previews the result before saving.
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { timezone } from '../format.ts';
import { href, Link, navigate } from '../router.tsx';
import { Field, PageHeader } from '../ui/page.tsx';
import { type Result, ResultView } from '../ui/result-view.tsx';
import { ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { WINDOWS } from '../ui/window-picker.tsx';
import { type Catalogue, type QueryDef, QueryEditor, WithCatalogue } from './bi-query-editor.tsx';

type View = Schemas['InsightView'];
type Source = View['source'];
const STYLES = ['table', 'bar', 'line', 'area', 'pie', 'number'] as const;
const OA_DIMENSIONS = ['app', 'object_type', 'object_id'];
const OA_MEASURES = ['events', 'unique_actors', 'first_seen', 'last_seen'];

function Builder({ view, catalogue }: { view?: View; catalogue: Catalogue }) {
  const initial = view?.source;
  const [name, setName] = useState(view?.name ?? '');
  const [question, setQuestion] = useState(view?.question ?? '');
  const [style, setStyle] = useState<View['report_style']>(view?.report_style ?? 'bar');
  const [kind, setKind] = useState<Source['type']>(initial?.type ?? 'bi_template');
  const [oa, setOa] = useState<Source>(
    initial?.type === 'object_analytics' ? initial : { type: 'object_analytics', window: '7d' },
  );
  const [dims, setDims] = useState<string[]>(view?.dimensions ?? OA_DIMENSIONS);
  const [oaMeasures, setOaMeasures] = useState<string[]>(
    initial?.type === 'object_analytics'
      ? (view?.measures.map((m) => m.column!) ?? [])
      : ['events', 'unique_actors'],
  );
  const [query, setQuery] = useState<QueryDef>(
    initial && initial.type !== 'object_analytics'
      ? {
          dataset_key: initial.dataset_key!,
          dimensions: view!.dimensions,
          measures: view!.measures,
          ...initial.query,
        }
      : {
          dataset_key: catalogue.sources[0]?.key ?? 'crm_pipeline',
          dimensions: [],
          measures: [{ aggregate: 'count' }],
          limit: 25,
        },
  );
  const [preview, setPreview] = useState<Result | null>(null);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [busy, setBusy] = useState(false);
  const [key] = useState(pressKey);

  const definition = () => {
    if (kind === 'object_analytics')
      return {
        source: { ...oa, type: kind },
        dimensions: dims,
        measures: oaMeasures.map((column) => ({ column })),
      };
    const { dataset_key, dimensions, measures, ...rest } = query;
    const type = catalogue.sources.find((s) => s.key === dataset_key)?.kind ?? 'bi_template';
    return {
      source: { type, dataset_key, query: { ...rest, timezone } },
      dimensions: dimensions ?? [],
      measures,
    };
  };
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const previewNow = () =>
    run(async () => {
      if (kind === 'object_analytics') {
        const { type: _type, limit, ...filters } = oa;
        const data = await ok(
          api.GET('/v1/insights/app-events', { params: { query: { ...filters, limit: limit ?? 25 } } }),
        );
        const columns = [
          ...dims.map((name) => ({ name, type: 'string', role: 'dimension' as const })),
          ...oaMeasures.map((name) => ({
            name,
            type: name.endsWith('seen') ? 'timestamp' : 'integer',
            role: 'measure' as const,
          })),
        ];
        setPreview({
          columns,
          rows: data.objects,
          row_count: data.objects.length,
          truncated: Boolean(data.next_cursor),
        });
      } else {
        const data = await ok(api.POST('/v1/bi/queries/run', { body: { ...query, timezone } }));
        setPreview(data.result);
      }
    });
  const save = (event: Event) => {
    event.preventDefault();
    run(async () => {
      const body = {
        name: name.trim(),
        question: question.trim() || undefined,
        report_style: style,
        ...definition(),
      } as const;
      const saved = view
        ? await ok(
            api.PATCH('/v1/insights/views/{view_id}', {
              params: { path: { view_id: view.id } },
              body: body as never,
            }),
          )
        : await ok(api.POST('/v1/insights/views', { body: { ...body, idempotency_key: key } as never }));
      navigate(href(`/insights/views/${saved.insight_view.id}`));
    });
  };
  const toggle = (list: string[], item: string, on: boolean) =>
    on ? [...list, item] : list.filter((x) => x !== item);
  return (
    <form class="stack form" onSubmit={save} aria-label="Insight view definition">
      <Field label="Name">
        <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Question it answers">
        <input maxLength={1000} value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
      </Field>
      <div class="row">
        <Field label="Source">
          <select
            value={kind === 'object_analytics' ? kind : 'bi'}
            onChange={(e) => setKind(e.currentTarget.value === 'bi' ? 'bi_template' : 'object_analytics')}
          >
            <option value="object_analytics">Object Analytics</option>
            <option value="bi">Custom BI dataset or template</option>
          </select>
        </Field>
        <Field label="Report style">
          <select value={style} onChange={(e) => setStyle(e.currentTarget.value as View['report_style'])}>
            {STYLES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Refresh behaviour" hint="Scheduled once a schedule targets this view.">
          <input readOnly value={view?.refresh_behaviour ?? 'manual'} />
        </Field>
      </div>
      {kind === 'object_analytics' ? (
        <>
          <div class="row">
            {(['app', 'object_type', 'object_id', 'event_name'] as const).map((f) => (
              <Field key={f} label={f.replace('_', ' ')}>
                <input
                  value={oa[f] ?? ''}
                  onInput={(e) => setOa({ ...oa, [f]: e.currentTarget.value || undefined })}
                />
              </Field>
            ))}
          </div>
          <div class="row">
            <Field label="Window">
              <select
                value={oa.window ?? '7d'}
                onChange={(e) => setOa({ ...oa, window: e.currentTarget.value as Source['window'] })}
              >
                {WINDOWS.map((w) => (
                  <option key={w}>{w}</option>
                ))}
              </select>
            </Field>
            <Field label="Sort">
              <select
                value={oa.sort ?? 'events'}
                onChange={(e) => setOa({ ...oa, sort: e.currentTarget.value as Source['sort'] })}
              >
                <option value="events">events</option>
                <option value="last_seen">last_seen</option>
              </select>
            </Field>
          </div>
          <fieldset>
            <legend>Dimensions</legend>
            <div class="checks">
              {OA_DIMENSIONS.map((d) => (
                <label key={d}>
                  <input
                    type="checkbox"
                    checked={dims.includes(d)}
                    onChange={(e) => setDims(toggle(dims, d, e.currentTarget.checked))}
                  />
                  {d}
                </label>
              ))}
            </div>
          </fieldset>
          <fieldset>
            <legend>Measures</legend>
            <div class="checks">
              {OA_MEASURES.map((m) => (
                <label key={m}>
                  <input
                    type="checkbox"
                    checked={oaMeasures.includes(m)}
                    onChange={(e) => setOaMeasures(toggle(oaMeasures, m, e.currentTarget.checked))}
                  />
                  {m}
                </label>
              ))}
            </div>
          </fieldset>
        </>
      ) : (
        <QueryEditor value={query} onChange={setQuery} catalogue={catalogue} />
      )}
      {error && <ErrorView error={error} />}
      <div class="actions">
        <button type="button" class="secondary" onClick={previewNow} disabled={busy}>
          Preview
        </button>
        <button type="submit" disabled={busy || !name.trim()}>
          {view ? 'Save changes' : 'Save insight view'}
        </button>
      </div>
      {preview && (
        <section aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          <ResultView result={preview} title="Preview" style={style} />
        </section>
      )}
    </form>
  );
}

export function ViewBuilder({ id }: { id?: string }) {
  const view = useLoad(
    async () =>
      id
        ? (await ok(api.GET('/v1/insights/views/{view_id}', { params: { path: { view_id: id } } })))
            .insight_view
        : null,
    [id],
  );
  return (
    <section>
      <p class="crumbs">
        <Link href={href('/insights/views')}>Insight Views</Link>
      </p>
      <PageHeader
        title={id ? 'Insight Builder' : 'New insight view'}
        lead="Define what the view reads and how it is drawn; preview before saving."
      />
      <Loaded load={view} what="the insight view">
        {(loaded) => (
          <WithCatalogue>
            {(catalogue) => <Builder view={loaded ?? undefined} catalogue={catalogue} />}
          </WithCatalogue>
        )}
      </Loaded>
    </section>
  );
}
