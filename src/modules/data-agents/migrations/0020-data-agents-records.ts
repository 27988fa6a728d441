import type { Kysely } from 'kysely';
import { listIndex } from '../../../db/migration-schema.ts';

// Data Agents records (issue 13 items 5-9): decisions, insights, recommendations, source objects and
// knowledge artifacts. Every key starts with workspace_id; each list filter has its index ending in id
// (lists are newest first by id). JSON columns are text on both databases, like the rest of the schema.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('data_agent_decisions')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('chosen_option', 'text')
    .addColumn('rationale', 'text')
    .addColumn('subject_type', 'text')
    .addColumn('subject_id', 'text')
    .addColumn('related_objects', 'text', (c) => c.notNull())
    .addColumn('supersedes_id', 'text')
    .addColumn('superseded_by_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('decision_note', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_decisions_pk', ['workspace_id', 'id'])
    .execute();
  await listIndex(db, 'data_agent_decisions', 'status', ['status']);
  await listIndex(db, 'data_agent_decisions', 'subject', ['subject_type', 'subject_id']);

  await db.schema
    .createTable('data_agent_insights')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('figures', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_insights_pk', ['workspace_id', 'id'])
    .execute();
  await listIndex(db, 'data_agent_insights', 'status', ['status']);

  await db.schema
    .createTable('data_agent_recommendations')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('rationale', 'text', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('action_tool', 'text', (c) => c.notNull())
    .addColumn('action_arguments', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('decision_note', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('execute_request_id', 'text')
    .addColumn('execution_request_id', 'text')
    .addColumn('execution_started_at', 'text')
    .addColumn('execution_status', 'integer')
    .addColumn('execution_result', 'text')
    .addColumn('executed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_recommendations_pk', ['workspace_id', 'id'])
    .execute();
  await listIndex(db, 'data_agent_recommendations', 'status', ['status']);
  await listIndex(db, 'data_agent_recommendations', 'tool', ['action_tool']);

  await db.schema
    .createTable('data_agent_source_objects')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('record_type', 'text')
    .addColumn('record_id', 'text')
    .addColumn('dataset_key', 'text')
    .addColumn('app', 'text')
    .addColumn('object_type', 'text')
    .addColumn('uri', 'text')
    .addColumn('description', 'text')
    .addColumn('owner', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_source_objects_pk', ['workspace_id', 'id'])
    .execute();
  await listIndex(db, 'data_agent_source_objects', 'kind', ['kind']);
  await listIndex(db, 'data_agent_source_objects', 'dataset', ['dataset_key']);

  await db.schema
    .createTable('data_agent_knowledge_artifacts')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('source_refs', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_knowledge_artifacts_pk', ['workspace_id', 'id'])
    .execute();
  await listIndex(db, 'data_agent_knowledge_artifacts', 'kind', ['kind']);
  await listIndex(db, 'data_agent_knowledge_artifacts', 'status', ['status']);
}
