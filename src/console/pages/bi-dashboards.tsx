// Dashboards: the list, and one dashboard's tiles in a grid, each rendering its report, metric or insight
// view; tiles move earlier or later with buttons (so from the keyboard too), saved at once.
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { when } from '../format.ts';
import { href, Link, location$, navigate } from '../router.tsx';
import { can } from '../session.ts';
import { Field, PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { ResultView } from '../ui/result-view.tsx';
import { Empty, ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';
import { laidOut } from './bi-reports.tsx';

type Dashboard = Schemas['BiDashboard'];
type Tile = Dashboard['tiles'][number];

export function BiDashboards() {
  const search = location$.value.search;
  const page = paging();
  const [name, setName] = useState('');
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/bi/dashboards', { params: { query: { cursor: page.cursor || undefined, limit: 25 } } }),
      ),
    [search],
  );
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const body = { name: name.trim(), tiles: [], idempotency_key: pressKey() };
      navigate(href(`/bi/dashboards/${(await ok(api.POST('/v1/bi/dashboards', { body }))).dashboard.id}`));
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <section>
      <PageHeader title="Dashboards" lead="Tiles of reports, metrics and insight views." />
      {can(['bi:write']) && (
        <form class="row" onSubmit={create} aria-label="New dashboard">
          <Field label="New dashboard name">
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <button type="submit">Create dashboard</button>
        </form>
      )}
      {error && <ErrorView error={error} />}
      <Loaded load={list} what="dashboards">
        {(data) =>
          data.dashboards.length === 0 ? (
            <Empty>
              <p>No dashboards yet: create one here, or add a report to one from its page.</p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Dashboards"
                columns={[
                  {
                    key: 'name',
                    label: 'Name',
                    render: (d) => <Link href={href(`/bi/dashboards/${d.id}`)}>{d.name}</Link>,
                  },
                  {
                    key: 'tiles',
                    label: 'Tiles',
                    numeric: true,
                    render: (d) => String(d.tiles.length),
                    csv: (d) => d.tiles.length,
                  },
                  { key: 'updated_at', label: 'Updated', render: (d) => when(d.updated_at) },
                ]}
                rows={data.dashboards}
                rowKey={(d) => d.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

function TileBody({ tile }: { tile: Tile }) {
  const load = useLoad(async () => {
    const { type, id } = tile.ref;
    if (type === 'report') {
      const { report } = await ok(
        api.GET('/v1/bi/reports/{bi_report_id}', { params: { path: { bi_report_id: id } } }),
      );
      return { result: report.last_result, style: report.visualization, note: null };
    }
    if (type === 'insight_view') {
      const { insight_view: v } = await ok(
        api.GET('/v1/insights/views/{view_id}', { params: { path: { view_id: id } } }),
      );
      return { result: v.last_result, style: v.report_style, note: null };
    }
    const { metric } = await ok(
      api.GET('/v1/bi/metrics/{bi_metric_id}', { params: { path: { bi_metric_id: id } } }),
    );
    return { result: null, style: 'number', note: `${metric.key} = ${metric.expression} (${metric.status})` };
  }, [tile.ref.id]);
  return (
    <Loaded load={load} what={tile.title}>
      {(data) =>
        data.result ? (
          <ResultView result={data.result} title={tile.title} style={data.style} />
        ) : (
          <Empty>
            <p>{data.note ?? 'Not refreshed yet: refresh it from its page.'}</p>
          </Empty>
        )
      }
    </Loaded>
  );
}

export function BiDashboard({ id }: { id: string }) {
  const [dashboard, setDashboard] = useState<Dashboard | null>(null);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [moved, setMoved] = useState('');
  const load = useLoad(async () => {
    const { dashboard: d } = await ok(
      api.GET('/v1/bi/dashboards/{bi_dashboard_id}', { params: { path: { bi_dashboard_id: id } } }),
    );
    setDashboard(d);
    return d;
  }, [id]);
  const ordered = [...(dashboard?.tiles ?? [])].sort(
    (a, b) => a.position.y - b.position.y || a.position.x - b.position.x,
  );
  const move = async (from: number, to: number) => {
    const tiles = [...ordered];
    [tiles[from], tiles[to]] = [tiles[to]!, tiles[from]!];
    setError(null);
    try {
      const body = { tiles: laidOut(tiles) };
      const saved = await ok(
        api.PATCH('/v1/bi/{collection}/{id}', { params: { path: { collection: 'dashboards', id } }, body }),
      );
      setDashboard(saved.object as Dashboard);
      setMoved(`${tiles[to]!.title} moved to position ${to + 1}.`);
      // Keep the keyboard on the tile that moved.
      requestAnimationFrame(() => document.getElementById(`tile-${to}`)?.focus());
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  const writable = can(['bi:write']);
  return (
    <section>
      <p class="crumbs">
        <Link href={href('/bi/dashboards')}>Dashboards</Link>
      </p>
      <Loaded load={load} what="the dashboard">
        {() =>
          dashboard && (
            <>
              <PageHeader title={dashboard.name} lead={dashboard.description ?? undefined} />
              {error && <ErrorView error={error} />}
              <p role="status" class="note">
                {moved}
              </p>
              {ordered.length === 0 ? (
                <Empty>
                  <p>
                    No tiles yet: open a <Link href={href('/bi/reports')}>report</Link> and press Add to
                    dashboard.
                  </p>
                </Empty>
              ) : (
                <ol class="tiles">
                  {ordered.map((tile, i) => (
                    <li
                      key={`${tile.ref.type}:${tile.ref.id}:${i}`}
                      class="tile"
                      style={{ gridColumn: `span ${tile.position.w}` }}
                    >
                      <h2 id={`tile-${i}`} tabIndex={-1}>
                        {tile.title}
                      </h2>
                      {writable && (
                        <div class="actions">
                          <button
                            type="button"
                            class="secondary"
                            disabled={i === 0}
                            onClick={() => move(i, i - 1)}
                            aria-label={`Move ${tile.title} earlier`}
                          >
                            Earlier
                          </button>
                          <button
                            type="button"
                            class="secondary"
                            disabled={i === ordered.length - 1}
                            onClick={() => move(i, i + 1)}
                            aria-label={`Move ${tile.title} later`}
                          >
                            Later
                          </button>
                        </div>
                      )}
                      <TileBody tile={tile} />
                    </li>
                  ))}
                </ol>
              )}
            </>
          )
        }
      </Loaded>
    </section>
  );
}
