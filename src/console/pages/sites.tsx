// Analytics Sites: the list (name, status, origins, apps, key) with a status filter and cursor in the URL.
import { api, ok } from '../api.ts';
import { href, Link, location$, param, setParams } from '../router.tsx';
import { can } from '../session.ts';
import { PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, Loaded, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

export function SitesPage() {
  const search = location$.value.search;
  const status = param('status') as 'active' | 'paused' | '';
  const page = paging();
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/insights/sites', {
          params: { query: { status: status || undefined, cursor: page.cursor || undefined, limit: 25 } },
        }),
      ),
    [search],
  );
  const writable = can(['analytics:write']);
  return (
    <section>
      <PageHeader
        title="Analytics Sites"
        lead="Sites authorize web pages to send application events with a public site key, from allowed origins and apps."
      >
        {writable && (
          <Link class="button" href={href('/sites/new')}>
            Create site
          </Link>
        )}
      </PageHeader>
      <div class="toolbar">
        <label>
          Status
          <select value={status} onChange={(e) => setParams({ status: e.currentTarget.value })}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
          </select>
        </label>
      </div>
      <Loaded load={list} what="sites">
        {(data) =>
          data.analytics_sites.length === 0 ? (
            <Empty>
              <p>
                No sites yet{status ? ` with status ${status}` : ''}
                {writable ? (
                  <>
                    : <Link href={href('/sites/new')}>create one</Link> to collect events from a web page.
                  </>
                ) : (
                  '.'
                )}
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Sites"
                columns={[
                  {
                    key: 'name',
                    label: 'Name',
                    render: (s) => <Link href={href(`/sites/${s.id}`)}>{s.name}</Link>,
                  },
                  { key: 'status', label: 'Status' },
                  {
                    key: 'allowed_origins',
                    label: 'Allowed origins',
                    render: (s) => s.allowed_origins.join(', '),
                  },
                  {
                    key: 'allowed_apps',
                    label: 'Apps',
                    render: (s) => (s.allowed_apps.length ? s.allowed_apps.join(', ') : 'any'),
                  },
                  { key: 'validation_mode', label: 'Validation' },
                  { key: 'site_key', label: 'Site key', render: (s) => <code>{s.site_key}</code> },
                ]}
                rows={data.analytics_sites}
                rowKey={(s) => s.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
