// Insight Views: each saved view's question, source, refresh state and schedule, as the spec lists them.
import { api, ok, type Schemas } from '../api.ts';
import { when } from '../format.ts';
import { href, Link, location$, param, setParams } from '../router.tsx';
import { can } from '../session.ts';
import { PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, Loaded, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

type View = Schemas['InsightView'];

export function sourceText(source: View['source']): string {
  if (source.type === 'object_analytics') {
    const parts = [source.app, source.object_type, source.object_id].filter(Boolean).join(' / ');
    return `Object Analytics${parts ? `: ${parts}` : ''}${source.window ? ` (${source.window})` : ''}`;
  }
  return `${source.type === 'bi_template' ? 'BI template' : 'BI dataset'} ${source.dataset_key}`;
}

export function refreshText(view: Pick<View, 'last_refresh_status' | 'last_refresh_error'>): string {
  if (!view.last_refresh_status) return 'Never refreshed';
  if (view.last_refresh_status === 'completed') return 'Succeeded';
  if (view.last_refresh_status === 'failed')
    return `Failed: ${view.last_refresh_error?.message ?? 'unknown error'}`;
  return view.last_refresh_status;
}

export function ViewsPage() {
  const search = location$.value.search;
  const type = param('source_type') as View['source']['type'] | '';
  const page = paging();
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/insights/views', {
          params: { query: { source_type: type || undefined, cursor: page.cursor || undefined, limit: 25 } },
        }),
      ),
    [search],
  );
  return (
    <section>
      <PageHeader
        title="Insight Views"
        lead="Saved analytics definitions, refreshed by hand or on a schedule."
      >
        {can(['bi:write']) && (
          <Link class="button" href={href('/insights/views/new')}>
            New insight view
          </Link>
        )}
      </PageHeader>
      <div class="toolbar">
        <label>
          Source
          <select value={type} onChange={(e) => setParams({ source_type: e.currentTarget.value })}>
            <option value="">Any</option>
            <option value="object_analytics">Object Analytics</option>
            <option value="bi_template">BI template</option>
            <option value="bi_dataset">BI dataset</option>
          </select>
        </label>
      </div>
      <Loaded load={list} what="insight views">
        {(data) =>
          data.insight_views.length === 0 ? (
            <Empty>
              <p>
                No insight views yet: promote a slice from{' '}
                <Link href={href('/insights/objects')}>Object Analytics</Link>, or create one in the Insight
                Builder.
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Insight views"
                columns={[
                  {
                    key: 'name',
                    label: 'Name',
                    render: (v) => <Link href={href(`/insights/views/${v.id}`)}>{v.name}</Link>,
                  },
                  { key: 'question', label: 'Question', render: (v) => v.question ?? '—' },
                  {
                    key: 'source',
                    label: 'Source',
                    render: (v) => sourceText(v.source),
                    csv: (v) => sourceText(v.source),
                  },
                  {
                    key: 'ever_refreshed',
                    label: 'Refreshed',
                    render: (v) => (v.ever_refreshed ? 'Yes' : 'No'),
                  },
                  {
                    key: 'last_refreshed_at',
                    label: 'Last refreshed',
                    render: (v) => when(v.last_refreshed_at),
                  },
                  {
                    key: 'scheduled',
                    label: 'Scheduled',
                    render: (v) => (v.scheduled ? `Yes, next ${when(v.next_refresh_at)}` : 'No'),
                  },
                  {
                    key: 'last_refresh_status',
                    label: 'Last refresh',
                    render: refreshText,
                    csv: refreshText,
                  },
                ]}
                rows={data.insight_views}
                rowKey={(v) => v.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
