// The console's pages, the scopes each needs and the module they belong to: the navigation lists only the
// pages the signed-in key can use, and a page the key cannot use says which scope is missing.
import { can, scopes } from './session.ts';

export interface PageInfo {
  path: string;
  title: string;
  group: 'Insights' | 'Custom BI' | 'Analytics Sites';
  scopes: string[];
}

export const PAGES: PageInfo[] = [
  { path: '/insights/objects', title: 'Object Analytics', group: 'Insights', scopes: ['analytics:read'] },
  { path: '/insights/views', title: 'Insight Views', group: 'Insights', scopes: ['bi:read'] },
  { path: '/bi/templates', title: 'Templates', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/bi/query', title: 'Query builder', group: 'Custom BI', scopes: ['bi:read', 'bi:write'] },
  { path: '/bi/reports', title: 'Reports', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/bi/dashboards', title: 'Dashboards', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/bi/metrics', title: 'Metrics', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/bi/exports', title: 'Exports', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/bi/schedules', title: 'Scheduled artifacts', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/bi/runs', title: 'Runs', group: 'Custom BI', scopes: ['bi:read'] },
  { path: '/sites', title: 'Analytics Sites', group: 'Analytics Sites', scopes: ['analytics:read'] },
];

export const usable = (page: PageInfo) => can(page.scopes);

export const missingScope = (page: PageInfo) => page.scopes.find((scope) => !scopes.value.has(scope));

/** The page a path belongs to (its longest matching prefix). */
export function pageOf(path: string): PageInfo | undefined {
  return PAGES.filter((p) => path === `/console${p.path}` || path.startsWith(`/console${p.path}/`)).sort(
    (a, b) => b.path.length - a.path.length,
  )[0];
}
