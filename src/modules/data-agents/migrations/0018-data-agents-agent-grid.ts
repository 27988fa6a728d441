import type { Kysely } from 'kysely';
import { base, listIndex, references, timestamps } from '../../../db/migration-schema.ts';
import { isPostgres } from '../../../db/month-partitions.ts';

// Agent Grid: agent definitions and workflows with their immutable versions, runs and their children (tool
// calls, retrieval hits, cost events), sessions and their items, memories and their embeddings. Every key
// and index starts with workspace_id; references are composite (workspace_id, id) foreign keys.

export async function up(db: Kysely<any>): Promise<void> {
  const real = 'double precision';
  const bytes = isPostgres(db) ? 'bytea' : 'blob';

  await db.schema
    .createTable('agent_definitions')
    .$call(base)
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('tools', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_definitions_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('agent_definitions_key_unique', ['workspace_id', 'key'])
    .execute();
  await listIndex(db, 'agent_definitions', 'status', ['status']);

  await db.schema
    .createTable('agent_definition_versions')
    .$call(base)
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('tools', 'text', (c) => c.notNull())
    .addColumn('changelog', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_definition_versions_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('agent_definition_versions_number', ['workspace_id', 'agent_id', 'version'])
    .$call((t) => references(t, 'agent_definition_versions_agent_fk', 'agent_id', 'agent_definitions'))
    .execute();
  await listIndex(db, 'agent_definition_versions', 'agent', ['agent_id']);

  await db.schema
    .createTable('agent_workflows')
    .$call(base)
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('latest_version', 'integer', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_workflows_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('agent_workflows_key_unique', ['workspace_id', 'key'])
    .execute();
  await listIndex(db, 'agent_workflows', 'status', ['status']);
  await listIndex(db, 'agent_workflows', 'trigger', ['trigger_type']);

  await db.schema
    .createTable('agent_workflow_versions')
    .$call(base)
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('changelog', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_workflow_versions_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('agent_workflow_versions_number', ['workspace_id', 'workflow_id', 'version'])
    .$call((t) => references(t, 'agent_workflow_versions_workflow_fk', 'workflow_id', 'agent_workflows'))
    .execute();
  await listIndex(db, 'agent_workflow_versions', 'workflow', ['workflow_id']);

  await db.schema
    .createTable('agent_sessions')
    .$call(base)
    .addColumn('agent_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('title', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('last_item_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_sessions_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'agent_sessions_agent_fk', 'agent_id', 'agent_definitions'))
    .execute();
  await listIndex(db, 'agent_sessions', 'agent', ['agent_id']);
  await listIndex(db, 'agent_sessions', 'status', ['status']);
  await listIndex(db, 'agent_sessions', 'user', ['user_id']);

  await db.schema
    .createTable('agent_grid_runs')
    .$call(base)
    .addColumn('agent_id', 'text')
    .addColumn('agent_version_id', 'text')
    .addColumn('workflow_id', 'text')
    .addColumn('workflow_version_id', 'text')
    .addColumn('session_id', 'text')
    .addColumn('parent_run_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('output', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('tool_calls', 'integer', (c) => c.notNull())
    .addColumn('retrieval_hits', 'integer', (c) => c.notNull())
    .addColumn('cost_events', 'integer', (c) => c.notNull())
    .addColumn('tokens_in', 'bigint', (c) => c.notNull())
    .addColumn('tokens_out', 'bigint', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_grid_runs_pk', ['workspace_id', 'id'])
    .$call((t) =>
      references(t, 'agent_grid_runs_agent_version_fk', 'agent_version_id', 'agent_definition_versions'),
    )
    .$call((t) =>
      references(t, 'agent_grid_runs_workflow_version_fk', 'workflow_version_id', 'agent_workflow_versions'),
    )
    .$call((t) => references(t, 'agent_grid_runs_session_fk', 'session_id', 'agent_sessions'))
    .$call((t) => references(t, 'agent_grid_runs_parent_fk', 'parent_run_id', 'agent_grid_runs'))
    .execute();
  await listIndex(db, 'agent_grid_runs', 'agent', ['agent_id']);
  await listIndex(db, 'agent_grid_runs', 'workflow', ['workflow_id']);
  await listIndex(db, 'agent_grid_runs', 'session', ['session_id']);
  await listIndex(db, 'agent_grid_runs', 'status', ['status']);
  await listIndex(db, 'agent_grid_runs', 'parent', ['parent_run_id']);

  await db.schema
    .createTable('agent_grid_tool_calls')
    .$call(base)
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('registry_tool', 'integer', (c) => c.notNull())
    .addColumn('arguments', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('result_summary', 'text')
    .addColumn('request_id', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_grid_tool_calls_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'agent_grid_tool_calls_run_fk', 'run_id', 'agent_grid_runs'))
    .execute();
  await listIndex(db, 'agent_grid_tool_calls', 'run', ['run_id']);
  await listIndex(db, 'agent_grid_tool_calls', 'tool', ['tool']);
  await listIndex(db, 'agent_grid_tool_calls', 'request', ['request_id']);

  await db.schema
    .createTable('agent_grid_retrieval_hits')
    .$call(base)
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('collection_key', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('score', real, (c) => c.notNull())
    .addColumn('rank', 'integer')
    .addColumn('query', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_grid_retrieval_hits_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'agent_grid_retrieval_hits_run_fk', 'run_id', 'agent_grid_runs'))
    .execute();
  await listIndex(db, 'agent_grid_retrieval_hits', 'run', ['run_id']);
  await listIndex(db, 'agent_grid_retrieval_hits', 'document', ['collection_key', 'document_id']);

  await db.schema
    .createTable('agent_grid_cost_events')
    .$call(base)
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('tool_call_id', 'text')
    .addColumn('tokens_in', 'bigint', (c) => c.notNull())
    .addColumn('tokens_out', 'bigint', (c) => c.notNull())
    .addColumn('units', real, (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_grid_cost_events_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'agent_grid_cost_events_run_fk', 'run_id', 'agent_grid_runs'))
    .$call((t) =>
      references(t, 'agent_grid_cost_events_tool_call_fk', 'tool_call_id', 'agent_grid_tool_calls'),
    )
    .execute();
  await listIndex(db, 'agent_grid_cost_events', 'run', ['run_id']);
  await listIndex(db, 'agent_grid_cost_events', 'kind', ['kind']);

  await db.schema
    .createTable('agent_session_items')
    .$call(base)
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text')
    .addColumn('tool_call_id', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_session_items_pk', ['workspace_id', 'id'])
    // The conversation's order, and the keyset of its pages.
    .addUniqueConstraint('agent_session_items_sequence', ['workspace_id', 'session_id', 'sequence'])
    .$call((t) => references(t, 'agent_session_items_session_fk', 'session_id', 'agent_sessions'))
    .$call((t) => references(t, 'agent_session_items_run_fk', 'run_id', 'agent_grid_runs'))
    .$call((t) => references(t, 'agent_session_items_tool_call_fk', 'tool_call_id', 'agent_grid_tool_calls'))
    .execute();

  await db.schema
    .createTable('agent_memories')
    .$call(base)
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('importance', real, (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_memories_pk', ['workspace_id', 'id'])
    .execute();
  await listIndex(db, 'agent_memories', 'scope', ['scope', 'scope_id', 'status']);
  await listIndex(db, 'agent_memories', 'status', ['status']);

  await db.schema
    .createTable('agent_memory_embeddings')
    .$call(base)
    .addColumn('memory_id', 'text', (c) => c.notNull())
    .addColumn('collection_key', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('dimension', 'integer', (c) => c.notNull())
    .addColumn('vector', bytes)
    .addColumn('content_sha256', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_message', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('agent_memory_embeddings_pk', ['workspace_id', 'id'])
    // One embedding of a memory per collection.
    .addUniqueConstraint('agent_memory_embeddings_memory', ['workspace_id', 'memory_id', 'collection_key'])
    .$call((t) => references(t, 'agent_memory_embeddings_memory_fk', 'memory_id', 'agent_memories'))
    .execute();
  await listIndex(db, 'agent_memory_embeddings', 'collection', ['collection_key']);
  await listIndex(db, 'agent_memory_embeddings', 'status', ['status']);
}
