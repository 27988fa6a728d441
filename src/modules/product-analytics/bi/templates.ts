// The governed BI templates (spec "Custom BI built-in templates"): each names its columns (type, role,
// description), the time column ranges apply to, its source (template-sources.ts) and the default query a
// bare {dataset_key, limit} runs. Money is integer cents with the currency column named beside it.
import type { QueryDefinition } from './query-definition.ts';
import { callEventRollup, type TemplateRollup } from './rollup-source.ts';
import {
  agentopsSource,
  appEventsSource,
  callEventsSource,
  contentPerformanceSource,
  crmPipelineSource,
  type Source,
  supportTicketHealthSource,
} from './template-sources.ts';

export const COLUMN_TYPES = ['string', 'integer', 'money', 'timestamp', 'boolean'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];
export const COLUMN_ROLES = ['dimension', 'measure', 'time'] as const;
export type ColumnRole = (typeof COLUMN_ROLES)[number];

export interface BiColumn {
  name: string;
  type: ColumnType;
  role: ColumnRole;
  description: string;
  /** Money only: the column holding its ISO currency code (sums are grouped by it). */
  currency_column?: string;
}

export type DefaultQuery = Omit<QueryDefinition, 'dataset_key' | 'limit'>;

export interface BiTemplate {
  key: string;
  name: string;
  description: string;
  columns: BiColumn[];
  /** The timestamp column time_range and time_grain use unless the query names another. */
  time_column: string;
  default_query: DefaultQuery;
  source: Source;
  /** A pre-aggregated source that answers the queries it can answer exactly (rollup-source.ts). */
  rollup?: TemplateRollup;
}

const col = (
  name: string,
  type: ColumnType,
  role: ColumnRole,
  description: string,
  currency_column?: string,
): BiColumn => ({ name, type, role, description, ...(currency_column ? { currency_column } : {}) });

const callColumns = [
  col('call_id', 'string', 'dimension', 'The call event ID.'),
  col('event_type', 'string', 'dimension', 'api_request (REST), mcp_tool_call or worker_call.'),
  col('route', 'string', 'dimension', 'REST route template (POST /v1/contacts) or MCP tool name.'),
  col('method', 'string', 'dimension', 'HTTP method, or tools/call.'),
  col('credential_path', 'string', 'dimension', 'Surface and credential kind: rest/api_key, mcp/mcp_token.'),
  col('credential_id', 'string', 'dimension', 'The credential that called.'),
  col('http_status', 'integer', 'dimension', 'HTTP status of the answer.'),
  col('error_code', 'string', 'dimension', 'Error code of a failed call, else null.'),
  col('failed', 'boolean', 'measure', 'True when the call failed (status 400 or more); sum counts failures.'),
  col('units', 'integer', 'measure', 'Usage units the call consumed.'),
  col('billed_units', 'integer', 'measure', 'Units billed (0 for a failed call).'),
  col('duration_ms', 'integer', 'measure', 'Time the service took to answer, in ms.'),
  col('occurred_at', 'timestamp', 'time', 'When the call was made.'),
];

export const TEMPLATES: readonly BiTemplate[] = [
  {
    key: 'content_performance',
    name: 'Content performance',
    description:
      'CMS entries, marketing posts and campaigns: one row each, by content type, status and channel, with ' +
      'published counts and campaign budgets.',
    columns: [
      col('content_type', 'string', 'dimension', 'cms_entry, marketing_post or marketing_campaign.'),
      col('item_id', 'string', 'dimension', 'The entry, post or campaign ID.'),
      col('title', 'string', 'dimension', 'Entry or post title, campaign name.'),
      col('status', 'string', 'dimension', 'The item status (draft, published, active, ...).'),
      col('channel', 'string', 'dimension', 'Marketing channel (email, social, ads, ...); null for entries.'),
      col(
        'published',
        'boolean',
        'measure',
        'True for a published entry or post; sum is the published count.',
      ),
      col('budget_cents', 'money', 'measure', 'Campaign budget in cents; null otherwise.', 'currency'),
      col('currency', 'string', 'dimension', 'Currency of budget_cents.'),
      col('created_at', 'timestamp', 'time', 'When the item was created.'),
      col('published_at', 'timestamp', 'time', 'When the entry or post was published.'),
    ],
    time_column: 'created_at',
    default_query: {
      dimensions: ['content_type', 'status'],
      measures: [
        { aggregate: 'count', as: 'items' },
        { column: 'published', aggregate: 'sum', as: 'published_count' },
        { column: 'budget_cents', aggregate: 'sum', as: 'budget_cents' },
      ],
    },
    source: contentPerformanceSource,
  },
  {
    key: 'crm_pipeline',
    name: 'CRM pipeline',
    description: 'Deals by stage, stage key and currency, with counts and values (amount_cents).',
    columns: [
      col('deal_id', 'string', 'dimension', 'The deal ID.'),
      col('deal_name', 'string', 'dimension', 'The deal name.'),
      col(
        'stage_key',
        'string',
        'dimension',
        'Stage key (built-in new, qualified, proposal, won, lost, or custom).',
      ),
      col('stage', 'string', 'dimension', 'Stage name (the key for built-in stages).'),
      col('stage_kind', 'string', 'dimension', 'open, won or lost.'),
      col('currency', 'string', 'dimension', 'ISO currency of amount_cents.'),
      col('amount_cents', 'money', 'measure', 'Deal value in cents of its currency.', 'currency'),
      col('company_id', 'string', 'dimension', 'The deal company, if any.'),
      col('is_open', 'boolean', 'dimension', 'True while the deal is not won or lost.'),
      col('created_at', 'timestamp', 'time', 'When the deal was created.'),
      col('closed_at', 'timestamp', 'time', 'When it entered a won or lost stage; null while open.'),
    ],
    time_column: 'created_at',
    // By stage key alone: the grouping then follows deals_stage_value (workspace_id, stage_key, currency,
    // amount_cents), read in order with no sort, and no stage name is looked up per deal (bench:bi).
    default_query: {
      dimensions: ['stage_key'],
      measures: [
        { aggregate: 'count', as: 'deals' },
        { column: 'amount_cents', aggregate: 'sum', as: 'value_cents' },
      ],
      sort: [{ column: 'stage_key', direction: 'asc' }],
    },
    source: crmPipelineSource,
  },
  {
    key: 'support_ticket_health',
    name: 'Support ticket health',
    description:
      'Tickets by status and priority with first-response and resolution SLA risk counts (a clock is at ' +
      'risk when breached: answered late, or still open past its due time at query time).',
    columns: [
      col('ticket_id', 'string', 'dimension', 'The ticket ID.'),
      col('queue_id', 'string', 'dimension', 'The support queue.'),
      col('status', 'string', 'dimension', 'new, open, pending, on_hold, solved or closed.'),
      col('priority', 'string', 'dimension', 'low, normal, high or urgent.'),
      col('channel', 'string', 'dimension', 'email, web, chat, phone, api or mcp.'),
      col('assignee_id', 'string', 'dimension', 'The assignee, if any.'),
      col('is_open', 'boolean', 'dimension', 'True unless solved or closed.'),
      col('first_response_sla_risk', 'boolean', 'measure', 'First-response clock breached; sum counts them.'),
      col('resolution_sla_risk', 'boolean', 'measure', 'Resolution clock breached; sum counts them.'),
      col('created_at', 'timestamp', 'time', 'When the ticket was created.'),
      col('resolved_at', 'timestamp', 'time', 'When it was resolved.'),
    ],
    time_column: 'created_at',
    default_query: {
      dimensions: ['status', 'priority'],
      measures: [
        { aggregate: 'count', as: 'tickets' },
        { column: 'first_response_sla_risk', aggregate: 'sum', as: 'first_response_at_risk' },
        { column: 'resolution_sla_risk', aggregate: 'sum', as: 'resolution_at_risk' },
      ],
    },
    source: supportTicketHealthSource,
  },
  {
    key: 'usage_activation',
    name: 'Usage activation',
    description:
      'Usage events (REST, MCP and worker calls) by date, event type, route, method and credential path, ' +
      'with units and billed usage.',
    columns: callColumns,
    time_column: 'occurred_at',
    default_query: {
      dimensions: ['event_type'],
      measures: [
        { aggregate: 'count', as: 'events' },
        { column: 'units', aggregate: 'sum', as: 'units' },
        { column: 'billed_units', aggregate: 'sum', as: 'billed_units' },
      ],
      time_range: { relative: 'last_30_days' },
      time_grain: 'day',
    },
    source: callEventsSource,
    rollup: callEventRollup,
  },
  {
    key: 'api_usage',
    name: 'API usage',
    description: 'Calls per route and method with failures and average duration (the same call events).',
    columns: callColumns,
    time_column: 'occurred_at',
    default_query: {
      dimensions: ['route', 'method'],
      measures: [
        { aggregate: 'count', as: 'calls' },
        { column: 'failed', aggregate: 'sum', as: 'failed_calls' },
        { column: 'duration_ms', aggregate: 'avg', as: 'avg_duration_ms' },
      ],
    },
    source: callEventsSource,
    rollup: callEventRollup,
  },
  {
    key: 'agentops_execution_health',
    name: 'AgentOps execution health',
    description:
      'Data Agent execution jobs by job type, status, trigger and plane, with attempts, failures and ' +
      'durations (no rows until the workspace runs execution jobs).',
    columns: [
      col('job_id', 'string', 'dimension', 'The execution job ID.'),
      col('job_type', 'string', 'dimension', 'The job type.'),
      col('status', 'string', 'dimension', 'The job status (queued, running, completed, failed, ...).'),
      col('trigger', 'string', 'dimension', 'What started it (manual, schedule, ...).'),
      col('plane_id', 'string', 'dimension', 'The execution plane it ran on.'),
      col('attempts', 'integer', 'measure', 'Attempts started.'),
      col('failed', 'boolean', 'measure', 'True when the job failed; sum counts failures.'),
      col('duration_ms', 'integer', 'measure', 'Run time of the finished job, in ms.'),
      col('error_code', 'string', 'dimension', 'Error code of a failed job.'),
      col('created_at', 'timestamp', 'time', 'When the job was created.'),
      col('queued_at', 'timestamp', 'time', 'When it was queued.'),
      col('started_at', 'timestamp', 'time', 'When its latest attempt started.'),
      col('finished_at', 'timestamp', 'time', 'When it finished.'),
    ],
    time_column: 'created_at',
    default_query: {
      dimensions: ['job_type', 'status', 'trigger'],
      measures: [
        { aggregate: 'count', as: 'jobs' },
        { column: 'attempts', aggregate: 'sum', as: 'attempts' },
        { column: 'duration_ms', aggregate: 'avg', as: 'avg_duration_ms' },
      ],
    },
    source: agentopsSource,
  },
  {
    key: 'app_events',
    name: 'Application events',
    description: 'Hourly rollups of application events by app, object type, object ID and event name.',
    columns: [
      col('app', 'string', 'dimension', 'The app key the events were sent with.'),
      col('object_type', 'string', 'dimension', 'Object type.'),
      col('object_id', 'string', 'dimension', 'Object ID.'),
      col('event_name', 'string', 'dimension', 'Event name (order.created, pageview).'),
      col('events', 'integer', 'measure', 'Events in the hour; sum adds them up.'),
      col('hour', 'timestamp', 'time', 'Start of the UTC hour.'),
    ],
    time_column: 'hour',
    default_query: {
      dimensions: ['app', 'event_name'],
      measures: [{ column: 'events', aggregate: 'sum', as: 'events' }],
    },
    source: appEventsSource,
  },
];

const byKey = new Map(TEMPLATES.map((t) => [t.key, t]));

export function findTemplate(key: string): BiTemplate | undefined {
  return byKey.get(key);
}
