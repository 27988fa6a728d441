// Custom BI runs: status, attempts, trigger, times and error of each refresh, export and scheduled job,
// filterable by status, trigger and run type (all in the URL).
import { api, ok } from '../api.ts';
import { when } from '../format.ts';
import { location$, param, setParams } from '../router.tsx';
import { PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, Loaded, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

const STATUSES = ['queued', 'running', 'completed', 'failed', 'canceled'];
const TRIGGERS = ['manual', 'schedule', 'analytics_pipeline'];

export function BiRuns() {
  const search = location$.value.search;
  const page = paging();
  const filters = { status: param('status'), trigger: param('trigger'), run_type: param('run_type') };
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/bi/runs', {
          params: {
            query: {
              status: (filters.status || undefined) as never,
              trigger: (filters.trigger || undefined) as never,
              run_type: filters.run_type || undefined,
              cursor: page.cursor || undefined,
              limit: 25,
            },
          },
        }),
      ),
    [search],
  );
  return (
    <section>
      <PageHeader title="Runs" lead="Execution history of BI refreshes, exports and scheduled jobs." />
      <div class="toolbar">
        <label>
          Status
          <select value={filters.status} onChange={(e) => setParams({ status: e.currentTarget.value })}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Trigger
          <select value={filters.trigger} onChange={(e) => setParams({ trigger: e.currentTarget.value })}>
            <option value="">Any</option>
            {TRIGGERS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Run type
          <input
            value={filters.run_type}
            onChange={(e) => setParams({ run_type: e.currentTarget.value.trim() })}
          />
        </label>
      </div>
      <Loaded load={list} what="runs">
        {(data) =>
          data.runs.length === 0 ? (
            <Empty>
              <p>
                No runs match: refresh a report or insight view, or create an export, and its run shows here.
              </p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Runs"
                columns={[
                  { key: 'id', label: 'Run', render: (r) => <code>{r.id}</code> },
                  { key: 'run_type', label: 'Type' },
                  { key: 'status', label: 'Status' },
                  { key: 'attempts', label: 'Attempts', numeric: true, render: (r) => String(r.attempts) },
                  { key: 'trigger', label: 'Trigger' },
                  { key: 'queued_at', label: 'Queued', render: (r) => when(r.queued_at) },
                  { key: 'finished_at', label: 'Finished', render: (r) => when(r.finished_at) },
                  {
                    key: 'error',
                    label: 'Error',
                    render: (r) => r.error?.message ?? '—',
                    csv: (r) => r.error?.message ?? '',
                  },
                ]}
                rows={data.runs}
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
