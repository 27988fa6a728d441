// Exports: create one from a saved query, watch its status until it ends, and download its file (through
// this origin: the signed URL's path and query, so the page's CSP allows it).
import { useEffect, useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { count, saveFile, slug, when } from '../format.ts';
import { location$, param } from '../router.tsx';
import { can } from '../session.ts';
import { Field, PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

type Export = Schemas['BiExport'];

async function download(item: Export) {
  const url = new URL(item.download!.url);
  const response = await fetch(`${url.pathname}${url.search}`);
  if (!response.ok) throw new Error(`The download answered ${response.status}.`);
  saveFile(`${slug(item.name)}.${item.format}`, await response.blob());
}

function NewExport({ onCreated }: { onCreated: () => void }) {
  const queries = useLoad(() => ok(api.GET('/v1/bi/queries', { params: { query: { limit: 100 } } })), []);
  const [queryId, setQueryId] = useState(param('query_id'));
  const [name, setName] = useState('');
  const [format, setFormat] = useState<'csv' | 'jsonl'>('csv');
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const body = { name: name.trim(), format, query_id: queryId, idempotency_key: pressKey() };
      await ok(api.POST('/v1/bi/exports', { body }));
      setName('');
      onCreated();
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <Loaded load={queries} what="saved queries">
      {(data) => (
        <form class="row panel" onSubmit={create} aria-label="New export">
          <Field label="Saved query">
            <select required value={queryId} onChange={(e) => setQueryId(e.currentTarget.value)}>
              <option value="">Choose a query</option>
              {data.queries.map((q) => (
                <option key={q.id} value={q.id}>
                  {q.name ?? q.dataset_key} ({q.id})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Export name">
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Format">
            <select value={format} onChange={(e) => setFormat(e.currentTarget.value as 'csv')}>
              <option value="csv">CSV</option>
              <option value="jsonl">JSON lines</option>
            </select>
          </Field>
          <button type="submit" disabled={!queryId || !name.trim()}>
            Create export
          </button>
          {error && <ErrorView error={error} />}
        </form>
      )}
    </Loaded>
  );
}

export function BiExports() {
  const search = location$.value.search;
  const page = paging();
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const list = useLoad(
    () =>
      ok(api.GET('/v1/bi/exports', { params: { query: { cursor: page.cursor || undefined, limit: 25 } } })),
    [search],
  );
  const pending = list.data?.exports.some((e) => e.status === 'queued' || e.status === 'running');
  // Watch the status: read the list again every second while an export is still queued or running.
  useEffect(() => {
    if (!pending || list.state !== 'ok') return;
    const timer = setTimeout(list.reload, 1000);
    return () => clearTimeout(timer);
  }, [pending, list.state, list.data]);
  return (
    <section>
      <PageHeader title="Exports" lead="Files of a saved query's rows, made in the background." />
      {can(['bi:write']) && <NewExport onCreated={list.reload} />}
      {error && <ErrorView error={error} />}
      <Loaded load={list} what="exports">
        {(data) =>
          data.exports.length === 0 ? (
            <Empty>
              <p>
                No exports yet: choose a saved query above (the query builder saves one with each preview).
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Exports"
                columns={[
                  { key: 'name', label: 'Name' },
                  { key: 'format', label: 'Format' },
                  {
                    key: 'status',
                    label: 'Status',
                    render: (e) => (e.error ? `${e.status}: ${e.error.message}` : e.status),
                  },
                  { key: 'row_count', label: 'Rows', numeric: true, render: (e) => count(e.row_count) },
                  { key: 'created_at', label: 'Created', render: (e) => when(e.created_at) },
                  {
                    key: 'download',
                    label: 'File',
                    csv: (e) => e.download?.url ?? '',
                    render: (e) =>
                      e.download ? (
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Download ${e.name}`}
                          onClick={() => download(e).catch((f) => setError(toApiError(f)))}
                        >
                          Download
                        </button>
                      ) : (
                        '—'
                      ),
                  },
                ]}
                rows={data.exports}
                rowKey={(e) => e.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
