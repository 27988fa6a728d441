import type { Kysely } from 'kysely';

// External planes name the credentials allowed to work for them (issue 24 item 10), and a claimed job keeps
// the credential that claimed it: only that one reports on the claim. A plane registered before this keeps
// the credential that registered it (from its create audit event), else none until an update names some.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('data_agent_execution_planes')
    .addColumn('worker_credential_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('data_agent_execution_jobs').addColumn('worker_credential_id', 'text').execute();

  const planes = await db
    .selectFrom('data_agent_execution_planes')
    .select(['workspace_id', 'id'])
    .where('kind', '=', 'external')
    .execute();
  for (const plane of planes) {
    const created = await db
      .selectFrom('audit_events')
      .select(['actor_credential_id', 'on_behalf_of'])
      .where('workspace_id', '=', plane.workspace_id)
      .where('target_type', '=', 'data_agent_execution_plane')
      .where('target_id', '=', plane.id)
      .where('action', '=', 'create')
      .executeTakeFirst();
    const credential = created?.actor_credential_id ?? created?.on_behalf_of;
    if (!credential) continue;
    await db
      .updateTable('data_agent_execution_planes')
      .set({ worker_credential_ids: JSON.stringify([credential]) })
      .where('workspace_id', '=', plane.workspace_id)
      .where('id', '=', plane.id)
      .execute();
  }
  // Jobs claimed before this have no claiming credential on record: their worker may still report.
}
