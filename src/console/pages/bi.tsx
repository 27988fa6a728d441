// Custom BI: the route switch of its pages.
import { match } from '../router.tsx';
import { BiDashboard, BiDashboards } from './bi-dashboards.tsx';
import { BiExports } from './bi-exports.tsx';
import { BiMetrics } from './bi-metrics.tsx';
import { BiQueryBuilder } from './bi-query.tsx';
import { BiReport, BiReports } from './bi-reports.tsx';
import { BiRuns } from './bi-runs.tsx';
import { BiSchedules } from './bi-schedules.tsx';
import { BiTemplates } from './bi-templates.tsx';

export function BiPage() {
  let params: Record<string, string> | null = match('/bi/reports/:id');
  if (params) return <BiReport id={params.id!} />;
  params = match('/bi/dashboards/:id');
  if (params) return <BiDashboard id={params.id!} />;
  if (match('/bi/templates')) return <BiTemplates />;
  if (match('/bi/query')) return <BiQueryBuilder />;
  if (match('/bi/reports')) return <BiReports />;
  if (match('/bi/dashboards')) return <BiDashboards />;
  if (match('/bi/metrics')) return <BiMetrics />;
  if (match('/bi/exports')) return <BiExports />;
  if (match('/bi/schedules')) return <BiSchedules />;
  if (match('/bi/runs')) return <BiRuns />;
  return <p role="alert">This console has no page at this address.</p>;
}
