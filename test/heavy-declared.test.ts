// The reads declared heavy (docs/contract.md, section 17): on SQLite no request may read an unbounded number
// of rows on the main thread, so every read whose query no index bounds runs on the heavy-read connections.
// This pins the declared set: a new list filter without an index must be added here, and to `heavyFilters`.
import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../src/registry.ts';

/** For each read: the inputs that, set alone, make the call heavy ('(always)': every call). */
const expected: Record<string, string[]> = {
  search_contacts: ['query'],
  search_companies: ['query'],
  list_leads: ['query', 'custom_field_key'],
  list_journal_entries: ['query'],
  list_notes: ['query'],
  search_activity: ['query'],
  list_support_tickets: ['query', 'sla_breached'],
  search_entries: ['query'],
  list_marketing_campaigns: ['query'],
  list_marketing_posts: ['cms_entry_id', 'query'],
  search_assets: ['query', 'mime_type', 'related_resource_type', 'related_resource_id'],
  list_webhook_deliveries: ['status', 'event_type'],
  list_notifications: ['recipient_id', 'event_type', 'source_type', 'source_id'],
  list_projects: ['query'],
  list_project_tasks: ['status', 'priority', 'label', 'query'],
  list_product_roadmap_items: ['project_id', 'query'],
  list_calendar_events: ['status', 'related_resource_type', 'related_resource_id', 'query', 'from', 'to'],
  list_agent_grid_runs: ['agent_version_id', 'workflow_version_id'],
  list_agent_grid_tool_calls: ['status'],
  list_agent_grid_retrieval_hits: ['document_id'],
  list_agent_grid_cost_events: ['model'],
  list_agent_memories: ['scope', 'scope_id'],
  list_agent_session_items: ['role'],
  query_object_analytics: ['(always)'],
  get_app_event_timeseries: ['(always)'],
  get_app_event_object: ['(always)'],
  search_vector_collection: ['(always)'],
  discover_agent_grid_workflows: ['(always)'],
  preview_bi_dataset: ['(always)'],
  list_bi_runs: ['status', 'trigger', 'run_type'],
  list_bi_metrics: ['status'],
  list_bi_datasets: ['template_key'],
  list_data_agent_lineage_edges: ['job_id', 'direction'],
};

const registry = buildRegistry();

describe('heavy reads declared', () => {
  it('are exactly the reads whose queries no index bounds', () => {
    const declared: Record<string, string[]> = {};
    for (const op of registry.operations) {
      if (op.kind !== 'read') continue;
      if (op.heavy({})) {
        declared[op.name] = ['(always)'];
        continue;
      }
      const inputs = Object.keys((op.input as { properties?: object }).properties ?? {});
      // A one-letter query is too short for the trigram index; any other value just sets the filter.
      const heavy = inputs.filter((name) => op.heavy({ [name]: name === 'query' ? 'a' : 'x' }));
      if (heavy.length) declared[op.name] = heavy;
    }
    expect(declared).toEqual(expected);
  });

  it('keep an indexed search term, and one indexed filter, on the shared connections', () => {
    const op = (name: string) => registry.byName.get(name)!;
    expect(op('search_contacts').heavy({ query: 'alice' })).toBe(false);
    expect(op('list_tasks').heavy({ status: 'open' })).toBe(false);
    expect(op('list_support_tickets').heavy({ status: 'open', query: 'printer' })).toBe(false);
  });

  it('make two indexed filters heavy: one index serves one of them, the other is checked row by row', () => {
    const op = (name: string) => registry.byName.get(name)!;
    expect(op('list_tasks').heavy({ status: 'open', assignee_id: 'x' })).toBe(true);
    expect(op('list_support_tickets').heavy({ status: 'open', priority: 'high' })).toBe(true);
  });
});
