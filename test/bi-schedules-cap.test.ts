// The cap on scheduled artifacts: 200 live schedules a workspace by default (paused ones count, archived
// ones free their slot), raised or lowered by the operator's entitlement bi_scheduled_artifact, with a
// billing_limit_exceeded that says what to do. Another workspace is never held back by this one's schedules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/core/ids.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

async function savedQuery(ws: TestWorkspace): Promise<string> {
  const res = await h.request('POST', '/v1/bi/queries/run', {
    token: ws.apiKey,
    body: { dataset_key: 'crm_pipeline', limit: 5 },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.query.id;
}

const create = (ws: TestWorkspace, queryId: string, n: number) =>
  h.request('POST', '/v1/bi/scheduled-artifacts', {
    token: ws.apiKey,
    body: { name: `Hourly ${n}`, target: { type: 'query', id: queryId }, cadence: 'hourly', minute: n % 60 },
  });

/** Paused schedules written straight to the table: the cap counts rows, however they were made. */
async function holdPaused(ws: TestWorkspace, queryId: string, count: number) {
  const credential = await h.db
    .selectFrom('credentials')
    .select('id')
    .where('workspace_id', '=', ws.id)
    .where('kind', '=', 'api_key')
    .executeTakeFirstOrThrow();
  const now = h.clock.now().toISOString();
  await h.db
    .insertInto('bi_scheduled_artifacts')
    .values(
      Array.from({ length: count }, (_, n) => ({
        workspace_id: ws.id,
        id: newId('bisch'),
        name: `Paused ${n}`,
        target_type: 'query' as const,
        target_id: queryId,
        cadence: 'hourly' as const,
        minute: 0,
        hour: null,
        weekday: null,
        day_of_month: null,
        timezone: 'UTC',
        status: 'paused' as const,
        next_run_at: null,
        last_run_at: null,
        last_run_id: null,
        owner_credential_id: credential.id,
        created_at: now,
        updated_at: now,
        archived_at: null,
      })),
    )
    .execute();
}

describe(`the scheduled artifact cap (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('holds a workspace to 200 live schedules unless the operator entitles it to more', async () => {
    const ws = await h.workspace('Busy');
    const neighbour = await h.workspace('Neighbour');
    const queryId = await savedQuery(ws);
    await holdPaused(ws, queryId, 198);
    const last = await create(ws, queryId, 198);
    expect(last.status, last.text).toBe(201);
    expect((await create(ws, queryId, 199)).status).toBe(201);

    const over = await create(ws, queryId, 200);
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe('billing_limit_exceeded');
    expect(over.body.error.message).toContain('at most 200 live bi_scheduled_artifact records');
    expect(over.body.error.message).toContain('archive one');
    const mcp = await h.callTool(ws.mcpToken, 'create_bi_scheduled_artifact', {
      name: 'Over',
      target: { type: 'query', id: queryId },
      cadence: 'daily',
      hour: 6,
    });
    expect(mcp.body.error.code).toBe('billing_limit_exceeded');

    // Another workspace is not counted with this one.
    expect((await create(neighbour, await savedQuery(neighbour), 1)).status).toBe(201);

    // An archived schedule frees its slot.
    const archived = await h.request(
      'DELETE',
      `/v1/bi/scheduled-artifacts/${last.body.scheduled_artifact.id}`,
      {
        token: ws.apiKey,
      },
    );
    expect(archived.status, archived.text).toBe(200);
    expect((await create(ws, queryId, 201)).status).toBe(201);
    expect((await create(ws, queryId, 202)).status).toBe(403);

    // The operator's entitlement replaces the default: raised, lowered, and removed (the default again).
    await h.admin('PATCH', `/workspaces/${ws.id}`, { entitlements: { bi_scheduled_artifact: 201 } });
    expect((await create(ws, queryId, 203)).status).toBe(201);
    const entitled = await create(ws, queryId, 204);
    expect(entitled.status).toBe(403);
    expect(entitled.body.error.message).toContain(
      "at most 201 live bi_scheduled_artifact records (the operator's",
    );
    await h.admin('PATCH', `/workspaces/${ws.id}`, { entitlements: { bi_scheduled_artifact: null } });
    expect((await create(ws, queryId, 205)).status).toBe(403);
    await h.admin('PATCH', `/workspaces/${ws.id}`, { entitlements: { bi_scheduled_artifact: 1000 } });
    expect((await create(ws, queryId, 206)).status).toBe(201);
    const live = await h.db
      .selectFrom('bi_scheduled_artifacts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', '=', ws.id)
      .where('archived_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(live.n)).toBe(202);
  });
});
