// The query builder: dimensions, measures (approved metrics too), filters, time range and grain over a
// template or dataset, kept in the URL (q). It previews through run_bi_query and saves the query as a
// report, refreshed at once so the report has its result.
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { timezone } from '../format.ts';
import { href, navigate, param, setParams } from '../router.tsx';
import { Field, PageHeader } from '../ui/page.tsx';
import { type Result, ResultView } from '../ui/result-view.tsx';
import { ErrorView, toApiError } from '../ui/states.tsx';
import { type Catalogue, type QueryDef, QueryEditor, WithCatalogue } from './bi-query-editor.tsx';

const STYLES = ['table', 'bar', 'line', 'area', 'pie', 'number'] as const;
type Style = (typeof STYLES)[number];

function initial(catalogue: Catalogue): QueryDef {
  try {
    if (param('q')) return JSON.parse(param('q')) as QueryDef;
  } catch {
    // A hand-edited q that is not JSON: start afresh.
  }
  const dataset = param('dataset') || catalogue.sources[0]?.key || 'crm_pipeline';
  return { dataset_key: dataset, dimensions: [], measures: [{ aggregate: 'count' }], limit: 25 };
}

function Builder({ catalogue }: { catalogue: Catalogue }) {
  const [query, setQuery] = useState<QueryDef>(() => initial(catalogue));
  const [result, setResult] = useState<Schemas['BiQuery'] | null>(null);
  const [rows, setRows] = useState<Result | null>(null);
  const [name, setName] = useState('');
  const [style, setStyle] = useState<Style>((param('style') as Style) || 'bar');
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [busy, setBusy] = useState(false);
  const [key] = useState(pressKey);
  const change = (next: QueryDef) => {
    setQuery(next);
    setParams({ q: JSON.stringify(next), dataset: undefined }, { replace: true });
  };
  const attempt = async (action: () => Promise<void>) => {
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
  const preview = () =>
    attempt(async () => {
      const data = await ok(api.POST('/v1/bi/queries/run', { body: { ...query, timezone } }));
      setResult(data.query);
      setRows(data.result);
    });
  const save = (event: Event) => {
    event.preventDefault();
    attempt(async () => {
      const { report } = await ok(
        api.POST('/v1/bi/reports', {
          body: {
            name: name.trim(),
            query: { ...query, timezone },
            visualization: style,
            idempotency_key: key,
          },
        }),
      );
      await ok(
        api.POST('/v1/bi/reports/{bi_report_id}/refresh', {
          params: { path: { bi_report_id: report.id } },
          body: { idempotency_key: `${key}-refresh` },
        }),
      );
      navigate(href(`/bi/reports/${report.id}`));
    });
  };
  return (
    <>
      <QueryEditor value={query} onChange={change} catalogue={catalogue} />
      <div class="actions">
        <button type="button" onClick={preview} disabled={busy}>
          Preview
        </button>
        <Field label="Chart style">
          <select
            value={style}
            onChange={(e) => {
              setStyle(e.currentTarget.value as Style);
              setParams({ style: e.currentTarget.value }, { replace: true });
            }}
          >
            {STYLES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
      </div>
      {error && <ErrorView error={error} />}
      {rows && (
        <section aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          <p class="note">Saved as query {result?.id}.</p>
          <ResultView result={rows} title="Preview" style={style} />
          <form class="row" onSubmit={save} aria-label="Save as report">
            <Field label="Report name">
              <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <button type="submit" disabled={busy || !name.trim()}>
              Save as report
            </button>
          </form>
        </section>
      )}
    </>
  );
}

export function BiQueryBuilder() {
  return (
    <section>
      <PageHeader
        title="Query builder"
        lead="Pick a dataset, dimensions, measures and filters; preview; save as a report."
      />
      <WithCatalogue>{(catalogue) => <Builder catalogue={catalogue} />}</WithCatalogue>
    </section>
  );
}
