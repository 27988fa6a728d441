// Idempotent creates: replays, conflicts, key scoping, and one record under concurrent retries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredKeys } from '../src/core/idempotency.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const countRows = async (table: 'contacts' | 'tasks', workspaceId = ws.id) =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('idempotency keys', () => {
  it('replays the current record with 200, a new request_id, a usage event and no audit event', async () => {
    const first = await post('/v1/contacts', {
      name: 'Once',
      email: 'once@example.com',
      idempotency_key: 'contact-once',
    });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/v1/contacts', {
      email: 'once@example.com',
      name: 'Once',
      idempotency_key: 'contact-once',
    });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.contact).toEqual(first.body.contact);
    expect(again.body.request_id).not.toBe(first.body.request_id);
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', again.body.request_id)
      .execute();
    expect(audits).toEqual([]);
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', again.body.request_id)
      .execute();
    expect(calls[0]).toMatchObject({ http_status: 200, billed_units: 1 });
    const events = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', again.body.request_id)
      .execute();
    expect(events).toEqual([]);
  });

  it('returns the same record to REST and MCP for the same key and input', async () => {
    const rest = await post('/v1/tasks', { title: 'Cross-surface', idempotency_key: 'cross-1' });
    const mcp = await h.callTool(ws.mcpToken, 'create_task', {
      title: 'Cross-surface',
      idempotency_key: 'cross-1',
    });
    expect(mcp.result.isError).toBeUndefined();
    expect(mcp.body.task.id).toBe(rest.body.task.id);
  });

  it('answers 409 with the key when the input differs, and changes nothing', async () => {
    await post('/v1/contacts', { name: 'First', idempotency_key: 'conflict-1' });
    const before = await countRows('contacts');
    const conflict = await post('/v1/contacts', { name: 'Second', idempotency_key: 'conflict-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({
      code: 'idempotency_conflict',
      idempotency_key: 'conflict-1',
    });
    expect(await countRows('contacts')).toBe(before);
    const extraField = await post('/v1/contacts', {
      name: 'First',
      notes: 'added',
      idempotency_key: 'conflict-1',
    });
    expect(extraField.status).toBe(409);
  });

  it('scopes keys to a resource type and a workspace', async () => {
    const contact = await post('/v1/contacts', { name: 'Shared key', idempotency_key: 'shared' });
    const task = await post('/v1/tasks', { title: 'Shared key', idempotency_key: 'shared' });
    expect(contact.status).toBe(201);
    expect(task.status).toBe(201);
    const other = await h.workspace('Other');
    const elsewhere = await h.request('POST', '/v1/contacts', {
      token: other.apiKey,
      body: { name: 'Shared key', idempotency_key: 'shared' },
    });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.contact.id).not.toBe(contact.body.contact.id);
  });

  it('validates the key length and ignores keys on updates', async () => {
    const long = await post('/v1/contacts', { name: 'x', idempotency_key: 'k'.repeat(256) });
    expect(long.body.error.field_errors[0].field).toBe('idempotency_key');
    const empty = await post('/v1/contacts', { name: 'x', idempotency_key: '' });
    expect(empty.status).toBe(400);
    const task = (await post('/v1/tasks', { title: 'Update me' })).body.task;
    for (const status of ['completed', 'canceled']) {
      const res = await h.request('PATCH', `/v1/tasks/${task.id}`, {
        token: ws.apiKey,
        body: { status, idempotency_key: 'same' },
      });
      expect(res.status).toBe(200);
      expect(res.body.task.status).toBe(status);
    }
    const stored = await h.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('key', '=', 'same')
      .execute();
    expect(stored).toEqual([]);
  });

  it('creates exactly one record for 20 simultaneous creates with one key', async () => {
    const before = await countRows('tasks');
    const body = { title: 'Concurrent', idempotency_key: 'concurrent-20' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/v1/tasks', body)));
    const ids = new Set(responses.map((r) => r.body.task?.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^tsk_/);
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(19);
    expect(await countRows('tasks')).toBe(before + 1);
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', [...ids][0]!)
      .execute();
    expect(audits).toHaveLength(1);
  });

  it('replays a create with a heavy read without reading again, though the read would now fail', async () => {
    const dataset = await post('/v1/bi/datasets', {
      key: 'open_deals',
      name: 'Open deals',
      template_key: 'crm_pipeline',
    });
    expect(dataset.status, dataset.text).toBe(201);
    const body = { dataset_key: 'open_deals', idempotency_key: 'snapshot-1' };
    const first = await post('/v1/data-agents/dataset-versions', body);
    expect(first.status, first.text).toBe(201);
    const archived = await h.request('DELETE', `/v1/bi/datasets/${dataset.body.dataset.id}`, {
      token: ws.apiKey,
    });
    expect(archived.status).toBe(200);
    // The read itself fails now (the dataset is archived) ...
    const fresh = await post('/v1/data-agents/dataset-versions', { dataset_key: 'open_deals' });
    expect(fresh.status).toBe(400);
    // ... and the retry answers what the key made, without it; another input is a conflict, not read either.
    const again = await post('/v1/data-agents/dataset-versions', body);
    expect(again.status, again.text).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.dataset_version).toEqual(first.body.dataset_version);
    const other = await post('/v1/data-agents/dataset-versions', { ...body, description: 'Another' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });

  it('takes the Idempotency-Key header as the body field; both sent and different is 400', async () => {
    const send = (body: unknown, key?: string) =>
      h.request('POST', '/v1/tasks', {
        token: ws.apiKey,
        body,
        ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
      });
    const first = await send({ title: 'By header' }, 'header-1');
    expect(first.status).toBe(201);
    const again = await send({ title: 'By header' }, 'header-1');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.task.id).toBe(first.body.task.id);
    // The same key in the body, or in both, is the same key.
    const inBody = await send({ title: 'By header', idempotency_key: 'header-1' });
    expect(inBody.body.task.id).toBe(first.body.task.id);
    const inBoth = await send({ title: 'By header', idempotency_key: 'header-1' }, 'header-1');
    expect(inBoth.body.task.id).toBe(first.body.task.id);
    const before = await countRows('tasks');
    const differ = await send({ title: 'Mismatch', idempotency_key: 'body-key' }, 'header-key');
    expect(differ.status).toBe(400);
    expect(differ.body.error.code).toBe('validation_failed');
    expect(differ.body.error.field_errors).toEqual([
      { field: 'idempotency_key', message: expect.stringContaining('Idempotency-Key') },
    ]);
    const tooLong = await send({ title: 'Long key' }, 'k'.repeat(256));
    expect(tooLong.body.error.field_errors[0].field).toBe('idempotency_key');
    expect(await countRows('tasks')).toBe(before);
  });

  it('keeps keys 7 days; the sweep then forgets them and the key may be used again', async () => {
    const first = await post('/v1/contacts', { name: 'Week old', idempotency_key: 'weekly' });
    h.clock.advance(6 * 86_400_000);
    expect(await sweepExpiredKeys(h.db, h.clock.now(), { system: true })).toBe(0);
    expect((await post('/v1/contacts', { name: 'Other', idempotency_key: 'weekly' })).status).toBe(409);
    h.clock.advance(2 * 86_400_000);
    expect(await sweepExpiredKeys(h.db, h.clock.now(), { system: true })).toBeGreaterThan(0);
    const fresh = await post('/v1/contacts', { name: 'Other', idempotency_key: 'weekly' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.contact.id).not.toBe(first.body.contact.id);
  });
});
