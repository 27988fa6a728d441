// The object drill-down: one object's totals, its events by name, its timeseries and its most recent raw
// events with their properties, paginated; the window and event filter come from the URL.
import { api, ok } from '../api.ts';
import { count, timezone, when } from '../format.ts';
import { href, Link, location$ } from '../router.tsx';
import { PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, Loaded, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';
import { WindowPicker, windowQuery } from '../ui/window-picker.tsx';
import { FilterForm, filterQuery } from './object-filters.tsx';
import { Timeseries } from './timeseries.tsx';

export function ObjectDetail({ app, type, id }: { app: string; type: string; id: string }) {
  const search = location$.value.search;
  const window = windowQuery();
  const eventName = filterQuery().event_name;
  const page = paging();
  const path = { app, object_type: type, object_id: id };
  const detail = useLoad(
    () =>
      ok(
        api.GET('/v1/insights/app-events/objects/{app}/{object_type}/{object_id}', {
          params: {
            path,
            query: { ...window, event_name: eventName, cursor: page.cursor || undefined, limit: 25 },
          },
        }),
      ),
    [search, app, type, id],
  );
  const series = useLoad(
    () =>
      ok(
        api.GET('/v1/insights/app-events/timeseries', {
          params: { query: { ...path, ...window, event_name: eventName, timezone } },
        }),
      ),
    [JSON.stringify([window, eventName]), app, type, id],
  );
  const back = new URLSearchParams(search);
  for (const key of ['cursor', 'back', 'event_name']) back.delete(key);
  return (
    <section>
      <p class="crumbs">
        <Link href={`${href('/insights/objects')}?${back}`}>Object Analytics</Link> / {app} / {type}
      </p>
      <PageHeader title={`Object ${id}`} lead={`${type} of app ${app}`} />
      <FilterForm only={['event_name']} />
      <WindowPicker resolved={detail.data ? { from: detail.data.from, to: detail.data.to } : undefined} />
      <Loaded load={detail} what="the object">
        {(data) => (
          <>
            <dl class="totals" aria-label="Totals">
              <div>
                <dt>Events</dt>
                <dd>{count(data.object.totals.events)}</dd>
              </div>
              <div>
                <dt>Unique actors</dt>
                <dd>{count(data.object.totals.unique_actors)}</dd>
              </div>
              <div>
                <dt>First seen</dt>
                <dd>{when(data.object.totals.first_seen)}</dd>
              </div>
              <div>
                <dt>Last seen</dt>
                <dd>{when(data.object.totals.last_seen)}</dd>
              </div>
            </dl>
            <Timeseries load={series} title={`Events of ${id} over time`} />
            {data.object.by_event.length > 0 && (
              <DataTable
                caption="Events by name"
                columns={[
                  { key: 'event_name', label: 'Event name' },
                  { key: 'events', label: 'Events', numeric: true, render: (r) => count(r.events) },
                ]}
                rows={data.object.by_event}
                rowKey={(r) => r.event_name}
              />
            )}
            {data.events.length === 0 ? (
              <Empty>
                <p>No events of this object in the window. Widen the window or clear the event filter.</p>
              </Empty>
            ) : (
              <>
                <DataTable
                  caption="Recent events"
                  columns={[
                    { key: 'occurred_at', label: 'Occurred', render: (e) => when(e.occurred_at) },
                    { key: 'event_name', label: 'Event' },
                    {
                      key: 'actor',
                      label: 'Actor',
                      render: (e) => e.user_id ?? e.anonymous_id ?? '—',
                      csv: (e) => e.user_id ?? e.anonymous_id,
                    },
                    {
                      key: 'properties',
                      label: 'Properties',
                      render: (e) => <code class="json">{JSON.stringify(e.properties)}</code>,
                    },
                  ]}
                  rows={data.events}
                  rowKey={(e) => e.id}
                />
                <Pager next={data.next_cursor} {...page} />
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
