import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('companies')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('website', 'text')
    .addColumn('notes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('companies_pk', ['workspace_id', 'id'])
    .execute();

  await db.schema
    .createTable('contacts')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('company_id', 'text')
    .addColumn('company_name', 'text')
    .addColumn('notes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contacts_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint('contacts_company_fk', ['workspace_id', 'company_id'], 'companies', [
      'workspace_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('contacts_company')
    .on('contacts')
    .columns(['workspace_id', 'company_id', 'id'])
    .execute();

  await db.schema
    .createTable('tasks')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text')
    .addColumn('assignee_id', 'text')
    .addColumn('related_resource_type', 'text')
    .addColumn('related_resource_id', 'text')
    .addColumn('completed_note', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tasks_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema.createIndex('tasks_status').on('tasks').columns(['workspace_id', 'status', 'id']).execute();
  await db.schema
    .createIndex('tasks_assignee')
    .on('tasks')
    .columns(['workspace_id', 'assignee_id', 'id'])
    .execute();

  await db.schema
    .createTable('activities')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('related_resource_type', 'text')
    .addColumn('related_resource_id', 'text')
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_credential_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('activities_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('activities_type')
    .on('activities')
    .columns(['workspace_id', 'type', 'id'])
    .execute();
}
