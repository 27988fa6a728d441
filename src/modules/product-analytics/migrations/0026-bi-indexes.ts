import type { Kysely } from 'kysely';

// Covering indexes of the BI templates' default queries (docs/performance.md, "Custom BI at scale"): each
// holds every column its query reads, in its grouping order, so the query reads the index alone, in order,
// with no lookup of the rows and no sort for its groups. support_ticket_health groups by status and priority
// and computes the SLA risk from the four clock columns; api_usage groups calls by route and method with
// their status and duration. (crm_pipeline's deals_stage_value and usage_activation's call_events_occurred
// came before.) The price: one more index entry for each ticket write and each call event.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('support_tickets_bi_health')
    .on('support_tickets')
    .columns([
      'workspace_id',
      'status',
      'priority',
      'first_response_due_at',
      'first_responded_at',
      'resolution_due_at',
      'resolved_at',
    ])
    .execute();
  await db.schema
    .createIndex('call_events_bi_route')
    .on('call_events')
    .columns(['workspace_id', 'route', 'method', 'http_status', 'duration_ms'])
    .execute();
}
