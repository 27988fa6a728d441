// get_workspace_assistant_summary: what an assistant needs to orient itself in one call. Every section is
// computed only when the caller holds its read scope and its module is on; the others are listed under
// `omitted` with the scope they need, never silently empty.
import { Type } from '@sinclair/typebox';
import type { ModuleName, Scope } from '../../../core/catalogue.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import type { CounterName } from '../../../core/record-counters.ts';
import { readRecordCounters } from '../../../core/record-counters.ts';
import { Enum, Nullable, Shape, Text, Timestamp } from '../../../core/resource-schema.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import { RunSchema } from './agent-grid-schemas.ts';
import { openDealsByStage, recentActivities, recentAgentRuns } from './assistant-store.ts';
import { toRun } from './run-store.ts';
import { firstSentence, usableTools } from './tool-catalogue.ts';

/** Each record counter with the module and scope that may read it. */
const COUNTERS: { counter: CounterName; module: ModuleName; scope: Scope }[] = [
  { counter: 'contacts', module: 'crm', scope: 'crm:read' },
  { counter: 'companies', module: 'crm', scope: 'crm:read' },
  { counter: 'open_deals', module: 'crm', scope: 'crm:read' },
  { counter: 'tasks', module: 'tasks', scope: 'tasks:read' },
  { counter: 'activities', module: 'activity_log', scope: 'activity:read' },
  { counter: 'support_tickets', module: 'support', scope: 'support:read' },
  { counter: 'cms_entries', module: 'cms', scope: 'cms:read' },
  { counter: 'marketing_campaigns', module: 'cms', scope: 'cms:read' },
  { counter: 'assets', module: 'assets', scope: 'assets:read' },
  { counter: 'projects', module: 'projects', scope: 'projects:read' },
  { counter: 'active_project_tasks', module: 'projects', scope: 'projects:read' },
  { counter: 'products', module: 'products', scope: 'products:read' },
  { counter: 'product_releases', module: 'products', scope: 'products:read' },
  { counter: 'product_roadmap_items', module: 'products', scope: 'products:read' },
  { counter: 'calendars', module: 'calendar', scope: 'calendar:read' },
];

const count = (example: number) => Type.Integer({ minimum: 0, examples: [example] });
const ByStatus = MapOf(Type.Integer({ minimum: 0 }), { examples: [{ open: 7, completed: 30 }] });

const SummarySchema = Shape({
  workspace: Shape({ id: Text('ws_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'), name: Text('Northwind Design') }),
  enabled_modules: Type.Array(Text('crm'), { examples: [['crm', 'tasks', 'data_agents']] }),
  tools: Type.Array(
    Shape({
      name: Text('search_contacts'),
      kind: Enum(['read', 'create', 'update', 'archive', 'action'] as const),
      description: Text('Lists contacts, newest first; query matches name, email, company name and notes.'),
    }),
    { description: 'The tools this credential may call now (scopes held, module on), one line each.' },
  ),
  record_counts: MapOf(Shape({ total: count(42), by: ByStatus }), {
    description:
      'Record counters the caller may read, by counter name; `by` splits by status, type or currency.',
    examples: [{ contacts: { total: 42, by: { '': 42 } } }],
  }),
  open_work: Shape({
    tasks: Nullable(Shape({ open: count(7), by_status: ByStatus })),
    support_tickets: Nullable(Shape({ open: count(3), by_status: ByStatus })),
    deals_by_stage: Nullable(
      Type.Array(
        Shape({
          stage_key: Text('proposal'),
          currency: Text('USD'),
          count: count(2),
          amount_cents: count(500000),
        }),
      ),
    ),
  }),
  recent_activity: Nullable(
    Type.Array(
      Shape({
        id: Text('act_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
        type: Text('call'),
        summary: Text('Call with Ada about the renewal'),
        related_resource_type: Nullable(Text('contact')),
        related_resource_id: Nullable(Text('con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V')),
        occurred_at: Timestamp(),
      }),
    ),
  ),
  recent_agent_runs: Type.Array(RunSchema),
  omitted: Type.Array(Shape({ section: Text('open_work.deals_by_stage'), needs: Text('crm:read') }), {
    description: 'Sections left out because the caller lacks the scope (or the module is off).',
  }),
  generated_at: Timestamp(),
});

const OPEN_TICKET = ['new', 'open', 'pending', 'on_hold'];

function readable(ctx: OperationContext, module: ModuleName, scope: Scope): boolean {
  return ctx.enabledModule(module) && ctx.scopes.has(scope);
}

export const getWorkspaceAssistantSummary = defineOperation({
  name: 'get_workspace_assistant_summary',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: "An assistant's orientation in one call",
  description:
    'Call this first when acting as an assistant in a workspace: enabled modules, the tools this credential may call (name, kind, first sentence of each description), record counts, open work (tasks and support tickets by status, open deals by stage), the 10 latest activities and the 5 latest Agent Grid runs. Sections the credential may not read (e.g. deals without crm:read) are left out and listed under omitted with the scope they need. Reads only.',
  input: Strict({}),
  rest: { method: 'GET', path: '/v1/assistants/workspace/summary' },
  responseKey: 'summary',
  response: Shape({ summary: SummarySchema }),
  handler: async (ctx) => {
    const omitted: { section: string; needs: string }[] = [];
    const gate = (section: string, module: ModuleName, scope: Scope) => {
      const ok = readable(ctx, module, scope);
      if (!ok) omitted.push({ section, needs: ctx.enabledModule(module) ? scope : `module ${module}` });
      return ok;
    };
    const counters = COUNTERS.filter((c) => readable(ctx, c.module, c.scope));
    const canTasks = gate('open_work.tasks', 'tasks', 'tasks:read');
    const canTickets = gate('open_work.support_tickets', 'support', 'support:read');
    const canDeals = gate('open_work.deals_by_stage', 'crm', 'crm:read');
    const canActivity = gate('recent_activity', 'activity_log', 'activity:read');
    const [values, deals, activities, runs, tools] = await Promise.all([
      readRecordCounters(
        ctx.db,
        ctx.workspaceId,
        counters.map((c) => c.counter),
      ),
      canDeals ? openDealsByStage(ctx.db, ctx.workspaceId) : undefined,
      canActivity ? recentActivities(ctx.db, ctx.workspaceId, 10) : undefined,
      recentAgentRuns(ctx.db, ctx.workspaceId, 5),
      usableTools(ctx),
    ]);
    const recordCounts = Object.fromEntries(
      counters.map((c) => [c.counter, { total: values[c.counter].total, by: values[c.counter].by }]),
    );
    const byStatus = (counter: 'tasks' | 'support_tickets', open: readonly string[]) => {
      const by = values[counter]?.by ?? {};
      return { open: open.reduce((n, s) => n + (by[s] ?? 0), 0), by_status: by };
    };
    // Loaded at call time: the catalogue is derived from the module list, which imports this module.
    const { MODULES } = await import('../../../core/catalogue.ts');
    const summary = {
      workspace: { id: ctx.workspaceId, name: ctx.workspaceName },
      enabled_modules: MODULES.filter((m) => ctx.enabledModule(m)),
      tools: tools.map((op) => ({
        name: op.name,
        kind: op.kind,
        description: firstSentence(op.description),
      })),
      record_counts: recordCounts,
      open_work: {
        tasks: canTasks ? byStatus('tasks', ['open']) : null,
        support_tickets: canTickets ? byStatus('support_tickets', OPEN_TICKET) : null,
        deals_by_stage: deals ?? null,
      },
      recent_activity: activities ?? null,
      recent_agent_runs: runs.map(toRun),
      omitted,
      generated_at: ctx.now,
    };
    return { body: { summary } };
  },
});
