import type { Kysely } from 'kysely';

// Projects, products and calendar. Keys, unique constraints and indexes all start with workspace_id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text')
    .addColumn('start_date', 'text')
    .addColumn('target_date', 'text')
    .addColumn('next_task_number', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('projects_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('projects_key_unique', ['workspace_id', 'key'])
    .execute();
  await db.schema
    .createIndex('projects_status')
    .on('projects')
    .columns(['workspace_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('projects_owner')
    .on('projects')
    .columns(['workspace_id', 'owner_id', 'id'])
    .execute();

  await db.schema
    .createTable('project_boards')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_boards_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint('project_boards_project_fk', ['workspace_id', 'project_id'], 'projects', [
      'workspace_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('project_boards_project')
    .on('project_boards')
    .columns(['workspace_id', 'project_id', 'id'])
    .execute();

  await db.schema
    .createTable('project_board_columns')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('board_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('wip_limit', 'integer')
    .addColumn('task_status', 'text')
    .addColumn('task_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_board_columns_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint(
      'project_board_columns_board_fk',
      ['workspace_id', 'board_id'],
      'project_boards',
      ['workspace_id', 'id'],
    )
    .execute();
  await db.schema
    .createIndex('project_board_columns_board')
    .on('project_board_columns')
    .columns(['workspace_id', 'board_id', 'position', 'id'])
    .execute();
  await db.schema
    .createIndex('project_board_columns_project')
    .on('project_board_columns')
    .columns(['workspace_id', 'project_id', 'board_id', 'position'])
    .execute();

  await db.schema
    .createTable('project_tasks')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('board_id', 'text')
    .addColumn('column_id', 'text')
    .addColumn('position', 'integer')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('estimate', 'integer')
    .addColumn('labels', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('assignee_id', 'text')
    .addColumn('due_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_tasks_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('project_tasks_number_unique', ['workspace_id', 'project_id', 'number'])
    .addUniqueConstraint('project_tasks_key_unique', ['workspace_id', 'key'])
    .addForeignKeyConstraint('project_tasks_project_fk', ['workspace_id', 'project_id'], 'projects', [
      'workspace_id',
      'id',
    ])
    .addForeignKeyConstraint('project_tasks_board_fk', ['workspace_id', 'board_id'], 'project_boards', [
      'workspace_id',
      'id',
    ])
    .addForeignKeyConstraint(
      'project_tasks_column_fk',
      ['workspace_id', 'column_id'],
      'project_board_columns',
      ['workspace_id', 'id'],
    )
    .execute();
  const taskIndexes: [string, string[]][] = [
    ['project_tasks_project', ['workspace_id', 'project_id', 'id']],
    ['project_tasks_board', ['workspace_id', 'board_id', 'id']],
    ['project_tasks_column', ['workspace_id', 'column_id', 'position', 'id']],
    ['project_tasks_assignee', ['workspace_id', 'assignee_id', 'id']],
    // The summary counts open tasks of active projects (and the overdue ones) from this index alone.
    ['project_tasks_status', ['workspace_id', 'status', 'project_id', 'due_at']],
  ];
  for (const [name, columns] of taskIndexes) {
    await db.schema.createIndex(name).on('project_tasks').columns(columns).execute();
  }

  await db.schema
    .createTable('products')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('products_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('products_key_unique', ['workspace_id', 'key'])
    .execute();
  await db.schema
    .createIndex('products_status')
    .on('products')
    .columns(['workspace_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('product_releases')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('version_sort', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('target_date', 'text')
    .addColumn('released_at', 'text')
    .addColumn('notes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_releases_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('product_releases_version_unique', ['workspace_id', 'product_id', 'version'])
    .addForeignKeyConstraint('product_releases_product_fk', ['workspace_id', 'product_id'], 'products', [
      'workspace_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('product_releases_product_version')
    .on('product_releases')
    .columns(['workspace_id', 'product_id', 'version_sort', 'id'])
    .execute();
  await db.schema
    .createIndex('product_releases_version')
    .on('product_releases')
    .columns(['workspace_id', 'version_sort', 'id'])
    .execute();
  await db.schema
    .createIndex('product_releases_status')
    .on('product_releases')
    .columns(['workspace_id', 'status', 'version_sort'])
    .execute();

  await db.schema
    .createTable('product_roadmap_items')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('release_id', 'text')
    .addColumn('project_id', 'text')
    .addColumn('project_task_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_roadmap_items_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint('product_roadmap_items_product_fk', ['workspace_id', 'product_id'], 'products', [
      'workspace_id',
      'id',
    ])
    .addForeignKeyConstraint(
      'product_roadmap_items_release_fk',
      ['workspace_id', 'release_id'],
      'product_releases',
      ['workspace_id', 'id'],
    )
    .addForeignKeyConstraint('product_roadmap_items_project_fk', ['workspace_id', 'project_id'], 'projects', [
      'workspace_id',
      'id',
    ])
    .addForeignKeyConstraint(
      'product_roadmap_items_task_fk',
      ['workspace_id', 'project_task_id'],
      'project_tasks',
      ['workspace_id', 'id'],
    )
    .execute();
  const roadmapIndexes: [string, string[]][] = [
    ['product_roadmap_items_product', ['workspace_id', 'product_id', 'id']],
    ['product_roadmap_items_status', ['workspace_id', 'status', 'id']],
    ['product_roadmap_items_release', ['workspace_id', 'release_id', 'id']],
  ];
  for (const [name, columns] of roadmapIndexes) {
    await db.schema.createIndex(name).on('product_roadmap_items').columns(columns).execute();
  }

  await db.schema
    .createTable('calendars')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('color', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendars_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('calendars_owner')
    .on('calendars')
    .columns(['workspace_id', 'owner_id', 'id'])
    .execute();

  await db.schema
    .createTable('calendar_events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('calendar_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('location', 'text')
    .addColumn('all_day', 'integer', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text')
    .addColumn('end_date', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('recurrence', 'text')
    .addColumn('recurring', 'integer', (c) => c.notNull())
    .addColumn('series_ends_at', 'text')
    .addColumn('excluded_dates', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('attendees', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('related_resource_type', 'text')
    .addColumn('related_resource_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('calendar_events_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint('calendar_events_calendar_fk', ['workspace_id', 'calendar_id'], 'calendars', [
      'workspace_id',
      'id',
    ])
    .execute();
  const eventIndexes: [string, string[]][] = [
    ['calendar_events_calendar', ['workspace_id', 'calendar_id', 'id']],
    // Time windows: single events by start, recurring series by start and end (also the summary's index).
    ['calendar_events_window', ['workspace_id', 'recurring', 'starts_at', 'status']],
    ['calendar_events_calendar_starts', ['workspace_id', 'calendar_id', 'starts_at', 'id']],
    ['calendar_events_related', ['workspace_id', 'related_resource_type', 'related_resource_id', 'id']],
  ];
  for (const [name, columns] of eventIndexes) {
    await db.schema.createIndex(name).on('calendar_events').columns(columns).execute();
  }
}
