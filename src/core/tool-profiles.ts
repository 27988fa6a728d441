// Named tool profiles: the tools one kind of agent work needs, so a client lists those (/mcp?profile=crm)
// instead of every tool. Each is a list of modules (all their tools) and tools, declared here once; a tool
// may be in several, and every MCP tool is in at least one (test/contract.test.ts). Each profile's
// tools/list stays under 64 KB (test/mcp-profiles.test.ts): its schemas are whole, so a profile holds about
// twenty tools, and the large modules are split by the work their tools serve.
import type { ModuleName } from './catalogue.ts';

export interface ToolProfile {
  /** One line for find_tools, the README and the first-start banner. */
  description: string;
  modules?: readonly ModuleName[];
  tools?: readonly string[];
}

/** Listed with every profile and every narrowed listing: an agent finds and adds tools with them. */
export const DISCOVERY_TOOLS = ['find_tools', 'enable_toolset'] as const;

const crud = (plural: string, singular = plural.replace(/s$/, '')) => [
  `list_${plural}`,
  `create_${singular}`,
  `update_${singular}`,
];

export const TOOL_PROFILES = {
  core: {
    description:
      'Orientation and everyday work: workspace summary, any record by ID, history, tasks, activities.',
    modules: ['workspace', 'activity_log', 'tasks'],
  },
  crm: {
    description: 'Contacts, companies, leads, deals and their stages, notes.',
    tools: [
      'create_contact',
      'search_contacts',
      'create_company',
      'search_companies',
      'create_lead',
      'list_leads',
      'convert_lead',
      'create_deal_stage',
      'list_deal_stages',
      'create_deal',
      'update_deal',
      'update_deal_stage',
      'create_note',
      'list_notes',
      'update_note',
      'archive_note',
    ],
  },
  finance: {
    description: 'Invoices and payments, the chart of accounts and journal entries (CRM module).',
    tools: [
      ...crud('invoices'),
      'record_payment',
      'create_accounting_account',
      'list_accounting_accounts',
      ...crud('journal_entries', 'journal_entry'),
    ],
  },
  support: { description: 'Support queues, tickets, their messages and comments.', modules: ['support'] },
  content: {
    description: 'CMS sites, collections and entries, marketing, assets.',
    modules: ['cms', 'assets'],
  },
  projects: {
    description: 'Projects, boards and their tasks; products, roadmaps and releases.',
    modules: ['projects', 'products'],
  },
  calendar: { description: 'Calendars and events.', modules: ['calendar'] },
  integrations: {
    description: 'Webhooks and integration event types; notifications, rules, preferences, subscriptions.',
    modules: ['integrations', 'notifications'],
  },
  analytics: {
    description:
      'Ask the data: application events, Object Analytics, BI queries and the saved BI objects and insight views.',
    tools: [
      'get_app_event_settings',
      'get_app_event_timeseries',
      'get_app_event_object',
      'query_object_analytics',
      'list_analytics_sites',
      'list_bi_templates',
      'run_bi_query',
      'list_bi_queries',
      'list_bi_runs',
      'get_bi_run',
      'list_bi_datasets',
      'list_bi_metrics',
      'list_bi_reports',
      'list_bi_dashboards',
      'list_insight_views',
      'list_bi_exports',
    ],
  },
  tracking: {
    description: 'Event and property definitions, tracking plans, Analytics Sites and app event settings.',
    modules: ['analytics_governance'],
    tools: [
      'get_app_event_settings',
      'update_app_event_settings',
      ...crud('analytics_sites'),
      'archive_analytics_site',
      'rotate_analytics_site_key',
      'get_analytics_site_usage',
    ],
  },
  bi: {
    description: 'Build Custom BI: datasets, metrics, reports, dashboards, and changes to them.',
    tools: [
      'list_bi_templates',
      'preview_bi_dataset',
      'create_bi_dataset',
      'create_bi_metric',
      'create_bi_report',
      'create_bi_dashboard',
      'update_bi_object',
    ],
  },
  bi_delivery: {
    description: 'Run Custom BI: refreshes, schedules, exports, runs, archiving BI objects.',
    tools: [
      'refresh_bi_report',
      'create_bi_scheduled_artifact',
      'list_bi_scheduled_artifacts',
      'create_bi_export',
      'list_bi_exports',
      'list_bi_runs',
      'get_bi_run',
      'archive_bi_object',
    ],
  },
  insights: {
    description: 'Insight views: save an Object Analytics slice or a BI query, refresh, change, archive.',
    tools: [
      'query_object_analytics',
      ...crud('insight_views'),
      'archive_insight_view',
      'refresh_insight_view',
    ],
  },
  agents: {
    description:
      "An agent's working set: its Agent Grid runs, sessions and memories, vector search, and the Data Agents records it reads.",
    tools: [
      ...crud('agent_grid_runs'),
      'create_agent_grid_tool_call',
      'create_agent_grid_retrieval_hit',
      'create_agent_grid_cost_event',
      ...crud('agent_sessions'),
      'create_agent_session_item',
      ...crud('agent_memories', 'agent_memory'),
      'list_vector_collections',
      'search_vector_collection',
      'upsert_vector_documents',
      'list_data_agent_execution_jobs',
      'get_data_agent_execution_job_details',
      'list_data_agent_recommendations',
    ],
  },
  agent_grid: {
    description:
      'Every Agent Grid record: runs, tool calls, retrieval hits, costs, sessions, memories, embeddings.',
    tools: [
      ...crud('agent_grid_runs'),
      'list_agent_grid_tool_calls',
      'create_agent_grid_tool_call',
      'list_agent_grid_retrieval_hits',
      'create_agent_grid_retrieval_hit',
      'list_agent_grid_cost_events',
      'create_agent_grid_cost_event',
      ...crud('agent_sessions'),
      'list_agent_session_items',
      'create_agent_session_item',
      ...crud('agent_memories', 'agent_memory'),
      ...crud('agent_memory_embeddings'),
    ],
  },
  agent_builder: {
    description: 'Agent definitions, workflows and their versions; workflow discovery.',
    tools: [
      ...crud('agent_definitions'),
      'list_agent_definition_versions',
      'create_agent_definition_version',
      ...crud('agent_workflows'),
      'list_agent_workflow_versions',
      'create_agent_workflow_version',
      'discover_agent_grid_workflows',
      'reindex_agent_grid_workflow_discovery',
      'get_agent_grid_workflow_discovery_run',
      'list_agent_grid_workflow_discovery_runs',
      'cancel_agent_grid_workflow_discovery_run',
    ],
  },
  knowledge: {
    description: 'Vector collections and their documents, the workspace assistant, the service guide.',
    tools: [
      'list_vector_collections',
      'create_vector_collection',
      'upsert_vector_documents',
      'search_vector_collection',
      'delete_vector_documents',
      'archive_vector_collection',
      'get_workspace_assistant_summary',
      'create_workspace_assistant_run',
      'get_workspace_assistant_run',
      'list_workspace_assistant_runs',
      'cancel_workspace_assistant_run',
      'create_service_guide_session',
    ],
  },
  data_agents: {
    description: 'Data Agents execution: planes, execution jobs (create, dispatch, review), lineage.',
    tools: [
      ...crud('data_agent_execution_planes'),
      'list_data_agent_execution_jobs',
      'get_data_agent_execution_job_details',
      'create_data_agent_execution_job',
      'update_data_agent_execution_job',
      'dispatch_data_agent_execution_job',
      'review_data_agent_execution_job',
      'list_data_agent_lineage_edges',
      'create_data_agent_lineage_edge',
    ],
  },
  datasets: {
    description:
      'Governed datasets: source objects, dataset versions and manifests, proposals, knowledgebases.',
    tools: [
      'list_data_agent_source_objects',
      'create_data_agent_source_object',
      'list_data_agent_dataset_versions',
      'create_data_agent_dataset_version',
      'list_data_agent_dataset_manifests',
      'create_data_agent_dataset_manifest',
      'propose_data_agent_dataset',
      'create_content_performance_knowledgebase',
    ],
  },
  decisions: {
    description:
      'Data Agents decisions, insights, recommendations and knowledge artifacts, and their approvals.',
    tools: [
      ...crud('data_agent_decisions'),
      'approve_data_agent_decision',
      'list_data_agent_insights',
      'create_data_agent_insight',
      'publish_data_agent_insight',
      'archive_data_agent_insight',
      ...crud('data_agent_recommendations'),
      'execute_data_agent_recommendation',
      ...crud('data_agent_knowledge_artifacts'),
    ],
  },
} as const satisfies Record<string, ToolProfile>;

export type ProfileName = keyof typeof TOOL_PROFILES;
export const PROFILE_NAMES = Object.keys(TOOL_PROFILES) as ProfileName[];

export function isProfileName(value: string): value is ProfileName {
  return Object.hasOwn(TOOL_PROFILES, value);
}

/** Whether a profile holds a tool: by its module, or by name. */
export function profileHolds(name: ProfileName, tool: { name: string; module: string }): boolean {
  const profile: ToolProfile = TOOL_PROFILES[name];
  return (
    (profile.modules?.includes(tool.module as ModuleName) ?? false) ||
    (profile.tools?.includes(tool.name) ?? false)
  );
}

/** The profiles holding a tool, in declaration order. */
export function profilesOf(tool: { name: string; module: string }): ProfileName[] {
  return PROFILE_NAMES.filter((name) => profileHolds(name, tool));
}
