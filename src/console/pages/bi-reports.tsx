// Reports: the list, and one report's last result as a chart and table, with refresh, schedule and
// "Add to dashboard" (an existing dashboard or a new one).
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { when } from '../format.ts';
import { href, Link, location$, navigate, param, setParams } from '../router.tsx';
import { can } from '../session.ts';
import { Dialog } from '../ui/dialog.tsx';
import { Field, PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { ResultView } from '../ui/result-view.tsx';
import { ScheduleButton } from '../ui/schedule-dialog.tsx';
import { Empty, ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';
import { refreshText } from './views.tsx';

type Report = Schemas['BiReport'];
type Tile = Schemas['BiDashboard']['tiles'][number];

export function BiReports() {
  const search = location$.value.search;
  const dataset = param('dataset_key');
  const page = paging();
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/bi/reports', {
          params: {
            query: { dataset_key: dataset || undefined, cursor: page.cursor || undefined, limit: 25 },
          },
        }),
      ),
    [search],
  );
  return (
    <section>
      <PageHeader title="Reports" lead="Saved queries with a visualization.">
        {can(['bi:write']) && (
          <Link class="button" href={href('/bi/query')}>
            New report
          </Link>
        )}
      </PageHeader>
      <div class="toolbar">
        <label>
          Dataset key
          <input value={dataset} onChange={(e) => setParams({ dataset_key: e.currentTarget.value.trim() })} />
        </label>
      </div>
      <Loaded load={list} what="reports">
        {(data) =>
          data.reports.length === 0 ? (
            <Empty>
              <p>
                No reports yet: build a query in the <Link href={href('/bi/query')}>query builder</Link> and
                save it as a report.
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Reports"
                columns={[
                  {
                    key: 'name',
                    label: 'Name',
                    render: (r) => <Link href={href(`/bi/reports/${r.id}`)}>{r.name}</Link>,
                  },
                  { key: 'dataset_key', label: 'Dataset' },
                  { key: 'visualization', label: 'Visualization' },
                  {
                    key: 'last_refreshed_at',
                    label: 'Last refreshed',
                    render: (r) => when(r.last_refreshed_at),
                  },
                  {
                    key: 'last_refresh_status',
                    label: 'Last refresh',
                    render: refreshText,
                    csv: refreshText,
                  },
                  { key: 'scheduled', label: 'Scheduled', render: (r) => (r.scheduled ? 'Yes' : 'No') },
                ]}
                rows={data.reports}
                rowKey={(r) => r.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

/** Tiles on a two-column layout of the 12-column grid, in order: positions follow the order. */
export function laidOut(tiles: Omit<Tile, 'target'>[]): Omit<Tile, 'target'>[] {
  return tiles.map((t, i) => ({
    title: t.title,
    ref: t.ref,
    position: { x: (i % 2) * 6, y: Math.floor(i / 2) * 4, w: 6, h: 4 },
  }));
}

function AddToDashboard({ report }: { report: Report }) {
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState('new');
  const [name, setName] = useState('');
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const dashboards = useLoad(
    async () =>
      open ? (await ok(api.GET('/v1/bi/dashboards', { params: { query: { limit: 100 } } }))).dashboards : [],
    [open],
  );
  const tile = { title: report.name, ref: { type: 'report' as const, id: report.id } };
  const add = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      let id = choice;
      if (choice === 'new') {
        const body = {
          name: name.trim(),
          tiles: laidOut([{ ...tile, position: { x: 0, y: 0, w: 6, h: 4 } }]),
          idempotency_key: pressKey(),
        };
        id = (await ok(api.POST('/v1/bi/dashboards', { body }))).dashboard.id;
      } else {
        const current = dashboards.data!.find((d) => d.id === choice)!;
        const tiles = laidOut([...current.tiles, { ...tile, position: { x: 0, y: 0, w: 6, h: 4 } }]);
        await ok(
          api.PATCH('/v1/bi/{collection}/{id}', {
            params: { path: { collection: 'dashboards', id } },
            body: { tiles },
          }),
        );
      }
      navigate(href(`/bi/dashboards/${id}`));
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={() => setOpen(true)}>
        Add to dashboard
      </button>
      <Dialog title="Add to dashboard" open={open} onClose={() => setOpen(false)}>
        <form class="stack" onSubmit={add}>
          <Field label="Dashboard">
            <select value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
              <option value="new">A new dashboard</option>
              {(dashboards.data ?? []).map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </Field>
          {choice === 'new' && (
            <Field label="New dashboard name">
              <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
          )}
          {error && <ErrorView error={error} />}
          <div class="actions">
            <button type="submit">Add tile</button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

export function BiReport({ id }: { id: string }) {
  const [refreshing, setRefreshing] = useState(false);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const load = useLoad(
    async () =>
      (await ok(api.GET('/v1/bi/reports/{bi_report_id}', { params: { path: { bi_report_id: id } } }))).report,
    [id],
  );
  const refresh = async () => {
    setRefreshing(true);
    setError(null);
    try {
      const params = { path: { bi_report_id: id } };
      await ok(
        api.POST('/v1/bi/reports/{bi_report_id}/refresh', { params, body: { idempotency_key: pressKey() } }),
      );
      load.reload();
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setRefreshing(false);
    }
  };
  return (
    <section>
      <p class="crumbs">
        <Link href={href('/bi/reports')}>Reports</Link>
      </p>
      <Loaded load={load} what="the report">
        {(report) => (
          <>
            <PageHeader
              title={report.name}
              lead={`${report.dataset_key} · last refreshed ${when(report.last_refreshed_at)}`}
            >
              {can(['bi:write']) && (
                <>
                  <button type="button" onClick={refresh} disabled={refreshing}>
                    {refreshing ? 'Refreshing…' : 'Refresh now'}
                  </button>
                  <ScheduleButton
                    target={{ type: 'report', id: report.id }}
                    name={report.name}
                    onScheduled={load.reload}
                  />
                  <AddToDashboard report={report} />
                </>
              )}
            </PageHeader>
            {error && <ErrorView error={error} />}
            {report.last_result ? (
              <ResultView result={report.last_result} title={report.name} style={report.visualization} />
            ) : (
              <Empty>
                <p>Not refreshed yet: press Refresh now.</p>
              </Empty>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
