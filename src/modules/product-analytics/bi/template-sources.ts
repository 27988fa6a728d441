// The governed views behind the BI templates: each selects every column of its template, by name, from the
// workspace's own rows, with the query builder (no SQL text from input). compile-query.ts reads them as a
// subquery `t`; filters and ranges on t's columns reach the tables' indexes (both databases push them down).
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from '../../../db/tables.ts';

export type Source = (db: Kysely<DB>, workspaceId: string, now: string) => SelectQueryBuilder<any, any, any>;

const flag = (condition: ReturnType<typeof sql>) => sql<number>`case when ${condition} then 1 else 0 end`;

export const crmPipelineSource: Source = (db, workspaceId) =>
  db
    .selectFrom('deals as d')
    .leftJoin('deal_stages as s', (join) =>
      join.onRef('s.workspace_id', '=', 'd.workspace_id').onRef('s.key', '=', 'd.stage_key'),
    )
    .where('d.workspace_id', '=', workspaceId)
    .select([
      'd.id as deal_id',
      'd.name as deal_name',
      'd.stage_key as stage_key',
      sql<string>`coalesce(s.name, d.stage_key)`.as('stage'),
      // Built-in stages (new, qualified, proposal, won, lost) have no row: won and lost close a deal.
      sql<string>`coalesce(s.kind, case d.stage_key when 'won' then 'won' when 'lost' then 'lost' else 'open' end)`.as(
        'stage_kind',
      ),
      'd.currency as currency',
      'd.amount_cents as amount_cents',
      'd.company_id as company_id',
      flag(sql`d.closed_at is null`).as('is_open'),
      'd.created_at as created_at',
      'd.closed_at as closed_at',
    ]);

/** One SLA clock at `now` as sla.ts reads it: breached when done late, or still open past its due time. */
const breached = (due: string, done: string, now: string) =>
  flag(
    sql`${sql.ref(due)} is not null and ((${sql.ref(done)} is null and ${sql.ref(due)} < ${now}) or ${sql.ref(done)} > ${sql.ref(due)})`,
  );

export const supportTicketHealthSource: Source = (db, workspaceId, now) =>
  db
    .selectFrom('support_tickets as k')
    .where('k.workspace_id', '=', workspaceId)
    .select([
      'k.id as ticket_id',
      'k.queue_id as queue_id',
      'k.status as status',
      'k.priority as priority',
      'k.channel as channel',
      'k.assignee_id as assignee_id',
      flag(sql`k.status not in ('solved', 'closed')`).as('is_open'),
      breached('k.first_response_due_at', 'k.first_responded_at', now).as('first_response_sla_risk'),
      breached('k.resolution_due_at', 'k.resolved_at', now).as('resolution_sla_risk'),
      'k.created_at as created_at',
      'k.resolved_at as resolved_at',
    ]);

const nullText = sql<string | null>`cast(null as text)`;

export const contentPerformanceSource: Source = (db, workspaceId) =>
  db
    .selectFrom('cms_entries as e')
    .where('e.workspace_id', '=', workspaceId)
    .select([
      sql<string>`'cms_entry'`.as('content_type'),
      'e.id as item_id',
      'e.title as title',
      'e.status as status',
      nullText.as('channel'),
      flag(sql`e.status = 'published'`).as('published'),
      sql<number | null>`cast(null as bigint)`.as('budget_cents'),
      nullText.as('currency'),
      'e.created_at as created_at',
      'e.published_at as published_at',
    ])
    .unionAll(
      db
        .selectFrom('marketing_posts as p')
        .where('p.workspace_id', '=', workspaceId)
        .select([
          sql<string>`'marketing_post'`.as('content_type'),
          'p.id as item_id',
          'p.title as title',
          'p.status as status',
          'p.channel as channel',
          flag(sql`p.status = 'published'`).as('published'),
          sql<number | null>`cast(null as bigint)`.as('budget_cents'),
          nullText.as('currency'),
          'p.created_at as created_at',
          'p.published_at as published_at',
        ]) as any,
    )
    .unionAll(
      db
        .selectFrom('marketing_campaigns as c')
        .where('c.workspace_id', '=', workspaceId)
        .select([
          sql<string>`'marketing_campaign'`.as('content_type'),
          'c.id as item_id',
          'c.name as title',
          'c.status as status',
          'c.channel as channel',
          flag(sql`1 = 0`).as('published'),
          'c.budget_cents as budget_cents',
          'c.currency as currency',
          'c.created_at as created_at',
          nullText.as('published_at'),
        ]) as any,
    );

/** Call events: every REST, MCP and worker call (the raw rows, kept for the usage retention period). */
export const callEventsSource: Source = (db, workspaceId) =>
  db
    .selectFrom('call_events as c')
    .where('c.workspace_id', '=', workspaceId)
    .select([
      'c.id as call_id',
      'c.kind as event_type',
      'c.route as route',
      'c.method as method',
      'c.credential_path as credential_path',
      'c.credential_id as credential_id',
      'c.http_status as http_status',
      'c.error_code as error_code',
      flag(sql`c.http_status >= 400`).as('failed'),
      'c.units as units',
      'c.billed_units as billed_units',
      'c.duration_ms as duration_ms',
      'c.occurred_at as occurred_at',
    ]);

export const appEventsSource: Source = (db, workspaceId) =>
  db
    .selectFrom('app_event_rollups as r')
    .where('r.workspace_id', '=', workspaceId)
    .select([
      'r.app as app',
      'r.object_type as object_type',
      'r.object_id as object_id',
      'r.event_name as event_name',
      'r.events as events',
      'r.hour as hour',
    ]);

/** Data Agent execution jobs (the data-agents module's table; empty until jobs are created). */
export const agentopsSource: Source = (db, workspaceId) =>
  db
    .selectFrom('data_agent_execution_jobs as j')
    .where('j.workspace_id', '=', workspaceId)
    .select([
      'j.id as job_id',
      'j.job_type as job_type',
      'j.status as status',
      'j.trigger as trigger',
      'j.plane_id as plane_id',
      'j.attempts as attempts',
      flag(sql`j.status = 'failed'`).as('failed'),
      'j.duration_ms as duration_ms',
      'j.error_code as error_code',
      'j.created_at as created_at',
      'j.queued_at as queued_at',
      'j.started_at as started_at',
      'j.finished_at as finished_at',
    ]);
