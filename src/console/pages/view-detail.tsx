// One insight view: its last result as a chart and table, and actions to refresh now (with the run's
// progress until it ends), schedule, export the rows as CSV, edit in the Insight Builder and archive.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { downloadCsv, slug, when } from '../format.ts';
import { href, Link, navigate } from '../router.tsx';
import { can } from '../session.ts';
import { Dialog } from '../ui/dialog.tsx';
import { PageHeader } from '../ui/page.tsx';
import { ResultView } from '../ui/result-view.tsx';
import { ScheduleButton } from '../ui/schedule-dialog.tsx';
import { Empty, ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { refreshText, sourceText } from './views.tsx';

type View = Schemas['InsightView'];
type Run = Schemas['BiRun'];

/** Seconds since a start, ticking while `active`. */
function useElapsed(active: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!active) return;
    const started = Date.now();
    setSeconds(0);
    const timer = setInterval(() => setSeconds(Math.round((Date.now() - started) / 1000)), 500);
    return () => clearInterval(timer);
  }, [active]);
  return seconds;
}

export function ViewDetail({ id }: { id: string }) {
  const [view, setView] = useState<View | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [archiving, setArchiving] = useState(false);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const elapsed = useElapsed(refreshing);
  const load = useLoad(async () => {
    const { insight_view } = await ok(
      api.GET('/v1/insights/views/{view_id}', { params: { path: { view_id: id } } }),
    );
    setView(insight_view);
    return insight_view;
  }, [id]);
  const writable = can(['bi:write']);
  const refresh = async () => {
    setRefreshing(true);
    setError(null);
    try {
      const body = { idempotency_key: pressKey() };
      const done = await ok(
        api.POST('/v1/insights/views/{view_id}/refresh', { params: { path: { view_id: id } }, body }),
      );
      setView(done.insight_view);
      setRun(done.run);
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setRefreshing(false);
    }
  };
  const archive = async () => {
    try {
      await ok(api.DELETE('/v1/insights/views/{view_id}', { params: { path: { view_id: id }, query: {} } }));
      navigate(href('/insights/views'));
    } catch (failure) {
      setArchiving(false);
      setError(toApiError(failure));
    }
  };
  return (
    <section>
      <p class="crumbs">
        <Link href={href('/insights/views')}>Insight Views</Link>
      </p>
      <Loaded load={load} what="the insight view">
        {() =>
          view && (
            <>
              <PageHeader title={view.name} lead={view.question ?? undefined}>
                {writable && (
                  <>
                    <button type="button" onClick={refresh} disabled={refreshing}>
                      Refresh now
                    </button>
                    <ScheduleButton
                      target={{ type: 'insight_view', id: view.id }}
                      name={view.name}
                      onScheduled={() => load.reload()}
                    />
                    <Link class="button secondary" href={href(`/insights/views/${view.id}/edit`)}>
                      Edit in Insight Builder
                    </Link>
                  </>
                )}
                <button
                  type="button"
                  class="secondary"
                  disabled={!view.last_result}
                  onClick={() =>
                    view.last_result &&
                    downloadCsv(
                      slug(view.name),
                      view.last_result.columns.map((c) => c.name),
                      view.last_result.rows,
                    )
                  }
                >
                  Export CSV
                </button>
                {writable && (
                  <button type="button" class="danger" onClick={() => setArchiving(true)}>
                    Archive
                  </button>
                )}
              </PageHeader>
              {refreshing && (
                <div class="progress" role="status">
                  <progress aria-label="Refreshing" /> Refreshing: the run is reading its source ({elapsed}{' '}
                  s)&hellip;
                </div>
              )}
              {run && !refreshing && (
                <p role="status" class="note">
                  Run {run.id} {run.status} in {run.duration_ms ?? 0} ms, {run.row_count ?? 0} rows.
                </p>
              )}
              {error && <ErrorView error={error} />}
              <dl class="facts">
                <dt>Source</dt>
                <dd>{sourceText(view.source)}</dd>
                <dt>Report style</dt>
                <dd>{view.report_style}</dd>
                <dt>Refresh behaviour</dt>
                <dd>{view.refresh_behaviour}</dd>
                <dt>Last refreshed</dt>
                <dd class="last-refreshed">
                  {view.last_refreshed_at ? when(view.last_refreshed_at) : 'Never'}
                </dd>
                <dt>Last refresh</dt>
                <dd>{refreshText(view)}</dd>
                <dt>Scheduled</dt>
                <dd>{view.scheduled ? `Yes, next ${when(view.next_refresh_at)}` : 'No'}</dd>
              </dl>
              {view.last_result ? (
                <ResultView result={view.last_result} title={view.name} style={view.report_style} />
              ) : (
                <Empty>
                  <p>This view has not been refreshed yet: press Refresh now to compute its first result.</p>
                </Empty>
              )}
              <Dialog title="Archive this insight view?" open={archiving} onClose={() => setArchiving(false)}>
                <p>It leaves the list and its schedules stop running it.</p>
                <div class="actions">
                  <button type="button" class="danger" onClick={archive}>
                    Archive
                  </button>
                  <button type="button" class="secondary" onClick={() => setArchiving(false)}>
                    Cancel
                  </button>
                </div>
              </Dialog>
            </>
          )
        }
      </Loaded>
    </section>
  );
}
