// Scheduled artifacts: what runs when (cadence Hourly, Daily, Weekly, Monthly or its last day; local time
// and timezone), its next run and last outcome; pause or resume.
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api.ts';
import { when } from '../format.ts';
import { location$, param, setParams } from '../router.tsx';
import { can } from '../session.ts';
import { PageHeader, Pager } from '../ui/page.tsx';
import { paging } from '../ui/paging.ts';
import { Empty, ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

type Artifact = Schemas['BiScheduledArtifact'];
const pad = (n: number) => String(n).padStart(2, '0');

export function cadenceText(a: Artifact): string {
  const time = `${pad(a.hour ?? 0)}:${pad(a.minute)}`;
  if (a.cadence === 'hourly') return `Hourly at minute ${a.minute}`;
  if (a.cadence === 'daily') return `Daily at ${time}`;
  if (a.cadence === 'weekly') return `Weekly on ${a.weekday} at ${time}`;
  return `Monthly on ${a.day_of_month === 'last' ? 'the last day' : `day ${a.day_of_month}`} at ${time}`;
}

export function BiSchedules() {
  const search = location$.value.search;
  const status = param('status') as 'active' | 'paused' | '';
  const page = paging();
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const list = useLoad(
    () =>
      ok(
        api.GET('/v1/bi/scheduled-artifacts', {
          params: { query: { status: status || undefined, cursor: page.cursor || undefined, limit: 25 } },
        }),
      ),
    [search],
  );
  const toggle = async (a: Artifact) => {
    setError(null);
    try {
      const body = { status: a.status === 'active' ? ('paused' as const) : ('active' as const) };
      await ok(
        api.PATCH('/v1/bi/{collection}/{id}', {
          params: { path: { collection: 'scheduled-artifacts', id: a.id } },
          body,
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
        title="Scheduled artifacts"
        lead="Reports, queries, exports and insight views refreshed on a schedule."
      />
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
      {error && <ErrorView error={error} />}
      <Loaded load={list} what="schedules">
        {(data) =>
          data.scheduled_artifacts.length === 0 ? (
            <Empty>
              <p>No schedules yet: open a report or an insight view and press Schedule.</p>
            </Empty>
          ) : (
            <>
              <DataTable
                caption="Scheduled artifacts"
                columns={[
                  { key: 'name', label: 'Name' },
                  {
                    key: 'target',
                    label: 'Target',
                    render: (a) => `${a.target.type} ${a.target.id}`,
                    csv: (a) => `${a.target.type}:${a.target.id}`,
                  },
                  { key: 'cadence', label: 'Cadence', render: cadenceText, csv: cadenceText },
                  { key: 'timezone', label: 'Timezone' },
                  { key: 'next_run_at', label: 'Next run', render: (a) => when(a.next_run_at) },
                  {
                    key: 'last_status',
                    label: 'Last run',
                    render: (a) =>
                      a.last_error ? `failed: ${a.last_error.message}` : (a.last_status ?? '—'),
                  },
                  { key: 'status', label: 'Status' },
                  {
                    key: 'actions',
                    label: 'Actions',
                    csv: () => '',
                    render: (a) =>
                      can(['bi:write']) ? (
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => toggle(a)}
                          aria-label={`${a.status === 'active' ? 'Pause' : 'Resume'} ${a.name}`}
                        >
                          {a.status === 'active' ? 'Pause' : 'Resume'}
                        </button>
                      ) : (
                        '—'
                      ),
                  },
                ]}
                rows={data.scheduled_artifacts}
                rowKey={(a) => a.id}
              />
              <Pager next={data.next_cursor} {...page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
