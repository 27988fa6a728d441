// Migration 0029 on a database that 0019 left with planes: an external plane is bound to the credential
// that registered it (its create audit event), or to none; the native plane to none. Both databases.
import { type Kysely, type Migration, Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import * as m0001 from '../src/db/migrations/0001-platform.ts';
import * as m0010 from '../src/db/migrations/0010-runs.ts';
import * as m0019 from '../src/modules/data-agents/migrations/0019-data-agents-jobs.ts';
import * as m0029 from '../src/modules/data-agents/migrations/0029-data-agents-plane-workers.ts';
import { isolatedDatabase } from './helpers/harness.ts';

let place: Awaited<ReturnType<typeof isolatedDatabase>>;
let database: ReturnType<typeof openDatabase>;
let db: Kysely<any>;

const migrate = async (migrations: Record<string, Migration>) => {
  const schema = place.env.WOS_DATABASE_SCHEMA;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
};

beforeAll(async () => {
  place = await isolatedDatabase();
  database = openDatabase(loadConfig({ ...place.env }));
  db = database.db as Kysely<any>;
});
afterAll(async () => {
  await database.close();
  await place.drop();
});

const NOW = '2026-11-21T12:00:00.000Z';
const plane = (id: string, kind: string) => ({
  workspace_id: 'ws_1',
  id,
  name: id,
  kind,
  status: 'active',
  capabilities: '["custom"]',
  config: '{}',
  lease_seconds: 300,
  builtin: kind === 'native' ? 'native' : null,
  created_at: NOW,
  updated_at: NOW,
});
const created = (target: string, credential: string | null, onBehalfOf: string | null) => ({
  workspace_id: 'ws_1',
  id: `aud_${target}`,
  request_id: `req_${target}`,
  occurred_at: NOW,
  actor_type: credential ? 'api_key' : 'system',
  actor_credential_id: credential,
  actor_name: 'x',
  surface: credential ? 'rest' : 'worker',
  tool: 'create_data_agent_execution_plane',
  action: 'create',
  target_type: 'data_agent_execution_plane',
  target_id: target,
  status: 'success',
  changed_fields: '[]',
  on_behalf_of: onBehalfOf,
});

describe('migration 0029-data-agents-plane-workers', () => {
  it('binds each external plane to the credential that registered it', async () => {
    const before = { '0001-platform': m0001, '0010-runs': m0010, '0019-data-agents-jobs': m0019 };
    await migrate(before);
    await db
      .insertInto('data_agent_execution_planes')
      .values([plane('dxp_native', 'native'), plane('dxp_a', 'external'), plane('dxp_b', 'external')])
      .execute();
    await db.insertInto('data_agent_execution_planes').values(plane('dxp_c', 'external')).execute();
    await db
      .insertInto('audit_events')
      .values([created('dxp_a', 'key_a', null), created('dxp_b', null, 'key_b')])
      .execute();
    await migrate({ ...before, '0029-data-agents-plane-workers': m0029 });
    const rows = await db
      .selectFrom('data_agent_execution_planes')
      .select(['id', 'worker_credential_ids'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 'dxp_a', worker_credential_ids: '["key_a"]' },
      { id: 'dxp_b', worker_credential_ids: '["key_b"]' },
      { id: 'dxp_c', worker_credential_ids: '[]' },
      { id: 'dxp_native', worker_credential_ids: '[]' },
    ]);
  });
});
