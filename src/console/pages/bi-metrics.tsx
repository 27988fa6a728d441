// Metrics: governed definitions, draft or approved (or deprecated). A key with bi:write creates drafts and
// approves them.
import { useState } from 'preact/hooks';
import { api, ok, pressKey } from '../api.ts';
import { href, Link, location$, param, setParams } from '../router.tsx';
import { can } from '../session.ts';
import { Field, PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

type Status = 'draft' | 'approved' | 'deprecated';

function NewMetric({ onSaved }: { onSaved: () => void }) {
  const [form, setForm] = useState({
    key: '',
    name: '',
    dataset_key: 'crm_pipeline',
    expression: '',
    format: 'number',
  });
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [key, setKey] = useState(pressKey);
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [field]: e.currentTarget.value });
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const body = { ...form, format: form.format as 'number', idempotency_key: key };
      await ok(api.POST('/v1/bi/metrics', { body }));
      setForm({ ...form, key: '', name: '', expression: '' });
      setKey(pressKey());
      onSaved();
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <details class="panel">
      <summary>New metric</summary>
      <form class="stack form" onSubmit={save} aria-label="New metric">
        <div class="row">
          <Field label="Key">
            <input required pattern="[a-z][a-z0-9_]*" value={form.key} onInput={set('key')} />
          </Field>
          <Field label="Name">
            <input required value={form.name} onInput={set('name')} />
          </Field>
          <Field label="Dataset key">
            <input required value={form.dataset_key} onInput={set('dataset_key')} />
          </Field>
          <Field label="Format">
            <select value={form.format} onChange={set('format')}>
              <option value="number">number</option>
              <option value="money">money</option>
              <option value="percent">percent</option>
            </select>
          </Field>
        </div>
        <Field label="Expression" hint="For example sum(amount_cents) or count(*); see docs/modules/bi.md.">
          <input required value={form.expression} onInput={set('expression')} />
        </Field>
        {error && <ErrorView error={error} />}
        <div class="actions">
          <button type="submit">Save draft</button>
        </div>
      </form>
    </details>
  );
}

export function BiMetrics() {
  const search = location$.value.search;
  const status = param('status') as Status | '';
  const page = paging();
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/bi/metrics', {
          params: { query: { status: status || undefined, cursor: page.cursor || undefined, limit: 25 } },
        }),
      ),
    [search],
  );
  const writable = can(['bi:write']);
  const approve = async (id: string) => {
    setError(null);
    try {
      await ok(
        api.PATCH('/v1/bi/{collection}/{id}', {
          params: { path: { collection: 'metrics', id } },
          body: { status: 'approved' },
        }),
      );
      list.reload();
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <section>
      <PageHeader
        title="Metrics"
        lead="Governed metric definitions. Drafts are usable by their creator; approved ones by everyone."
      />
      {writable && <NewMetric onSaved={list.reload} />}
      <div class="toolbar">
        <label>
          Status
          <select value={status} onChange={(e) => setParams({ status: e.currentTarget.value })}>
            <option value="">Any</option>
            <option value="draft">Draft</option>
            <option value="approved">Approved</option>
            <option value="deprecated">Deprecated</option>
          </select>
        </label>
      </div>
      {error && <ErrorView error={error} />}
      <Loaded load={list} what="metrics">
        {(data) =>
          data.metrics.length === 0 ? (
            <Empty>
              <p>
                No metrics{status ? ` with status ${status}` : ''} yet
                {writable ? ': create a draft above' : ''}. Approved metrics can be measures in the{' '}
                <Link href={href('/bi/query')}>query builder</Link>.
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Metrics"
                columns={[
                  { key: 'key', label: 'Key', render: (m) => <code>{m.key}</code> },
                  { key: 'name', label: 'Name' },
                  { key: 'dataset_key', label: 'Dataset' },
                  { key: 'expression', label: 'Expression', render: (m) => <code>{m.expression}</code> },
                  { key: 'status', label: 'Status' },
                  {
                    key: 'actions',
                    label: 'Actions',
                    csv: () => '',
                    render: (m) =>
                      writable && m.status === 'draft' ? (
                        <button type="button" onClick={() => approve(m.id)} aria-label={`Approve ${m.name}`}>
                          Approve
                        </button>
                      ) : (
                        '—'
                      ),
                  },
                ]}
                rows={data.metrics}
                rowKey={(m) => m.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
