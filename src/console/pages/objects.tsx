// Object Analytics: the grouped view of GET /v1/insights/app-events (app + object type + object ID), with
// its filters, window, sort and cursor in the URL, and above it the timeseries of the same filters.
import { api, ok, type Schemas } from '../api.ts';
import { count, timezone, when } from '../format.ts';
import { href, Link, location$, param, setParams } from '../router.tsx';
import { can } from '../session.ts';
import { PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, Loaded, useLoad } from '../ui/states.tsx';
import { type Column, DataTable } from '../ui/table.tsx';
import { WindowPicker, windowQuery } from '../ui/window-picker.tsx';
import { FilterForm, filterQuery } from './object-filters.tsx';
import { PromoteButton } from './promote-dialog.tsx';
import { Timeseries } from './timeseries.tsx';

type Row = Schemas['ObjectAnalyticsRow'];

const columns = (search: string): Column<Row>[] => [
  { key: 'app', label: 'App' },
  { key: 'object_type', label: 'Object type' },
  {
    key: 'object_id',
    label: 'Object ID',
    render: (r) => (
      <Link
        href={`${href(`/insights/objects/${[r.app, r.object_type, r.object_id].map(encodeURIComponent).join('/')}`)}?${search}`}
      >
        {r.object_id}
      </Link>
    ),
  },
  { key: 'events', label: 'Events', numeric: true, render: (r) => count(r.events) },
  { key: 'unique_actors', label: 'Unique actors', numeric: true, render: (r) => count(r.unique_actors) },
  { key: 'first_seen', label: 'First seen', render: (r) => when(r.first_seen) },
  { key: 'last_seen', label: 'Last seen', render: (r) => when(r.last_seen) },
  {
    key: 'top_events',
    label: 'Top events',
    render: (r) => r.top_events.map((e) => `${e.event_name} (${count(e.events)})`).join(', '),
    csv: (r) => r.top_events.map((e) => `${e.event_name}:${e.events}`).join(' '),
  },
];

export function ObjectsPage() {
  const search = location$.value.search;
  const filters = filterQuery();
  const window = windowQuery();
  const sort = param('sort') === 'last_seen' ? 'last_seen' : 'events';
  const page = paging();
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/insights/app-events', {
          params: { query: { ...filters, ...window, sort, cursor: page.cursor || undefined, limit: 25 } },
        }),
      ),
    [search],
  );
  const windowKey = JSON.stringify([filters, window]);
  const series = useLoad(
    () =>
      ok(
        api.GET('/v1/insights/app-events/timeseries', {
          params: { query: { ...filters, ...window, timezone } },
        }),
      ),
    [windowKey],
  );
  const keep = new URLSearchParams(search);
  keep.delete('cursor');
  keep.delete('back');
  keep.delete('sort');
  return (
    <section>
      <PageHeader
        title="Object Analytics"
        lead="Application events grouped by app, object type and object ID."
      >
        {can(['bi:write']) && (
          <PromoteButton source={{ type: 'object_analytics', ...filters, ...window, sort }} />
        )}
      </PageHeader>
      <FilterForm />
      <WindowPicker resolved={list.data ? { from: list.data.from, to: list.data.to } : undefined} />
      <Timeseries load={series} title="Events over time" />
      <div class="toolbar">
        <label>
          Sort by
          <select value={sort} onChange={(e) => setParams({ sort: e.currentTarget.value })}>
            <option value="events">Events</option>
            <option value="last_seen">Last seen</option>
          </select>
        </label>
      </div>
      <Loaded load={list} what="objects">
        {(data) =>
          data.objects.length === 0 ? (
            <Empty>
              <p>
                No events in this window. Send application events to <code>POST /v1/insights/app-events</code>
                , or from a web page through an <Link href={href('/sites')}>Analytics Site</Link>, or widen
                the window.
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption={`Objects, ${when(data.from)} to ${when(data.to)}`}
                columns={columns(keep.toString())}
                rows={data.objects}
                rowKey={(r) => `${r.app}/${r.object_type}/${r.object_id}`}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
