// Audit changed_fields never name the idempotency key or the dry-run flag, on every module and whatever a
// handler passes (the pipeline strips them); an update names only the fields it really changed.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation } from '../src/core/define-operation.ts';
import type { ModuleDefinition } from '../src/core/module.ts';
import { Strict } from '../src/core/schema.ts';
import { tasksModule } from '../src/modules/tasks/index.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown) =>
  h.request(method, url, { token: ws.apiKey, body });

async function changedFields(requestId: string): Promise<string[][]> {
  const rows = await h.db
    .selectFrom('audit_events')
    .select('changed_fields')
    .where('request_id', '=', requestId)
    .orderBy('id')
    .execute();
  return rows.map((row) => JSON.parse(row.changed_fields));
}

describe('audit changed_fields', () => {
  it('CRM: a create with an idempotency key and updates with it and dry_run false name only record fields', async () => {
    const contact = await call('POST', '/v1/contacts', {
      name: 'Ada',
      email: 'ada@example.com',
      idempotency_key: 'cf-1',
    });
    expect(contact.status).toBe(201);
    expect(await changedFields(contact.body.request_id)).toEqual([['name', 'email']]);

    const deal = await call('POST', '/v1/deals', {
      name: 'Deal',
      amount_cents: 100,
      idempotency_key: 'cf-2',
    });
    expect(deal.status).toBe(201);
    expect((await changedFields(deal.body.request_id))[0]).not.toContain('idempotency_key');
    // A body with dry_run (false) is served by update_deal_stage: applied, and audited without the flag.
    const moved = await call('PATCH', `/v1/deals/${deal.body.deal.id}`, {
      stage_key: 'qualified',
      notes: 'Called',
      dry_run: false,
      idempotency_key: 'cf-3',
    });
    expect(moved.status).toBe(200);
    expect(await changedFields(moved.body.request_id)).toEqual([['stage', 'notes']]);

    const note = await call('POST', '/v1/notes', {
      body: 'First',
      contact_id: contact.body.contact.id,
      idempotency_key: 'cf-4',
    });
    expect(await changedFields(note.body.request_id)).toEqual([['body', 'contact_id']]);
    const edited = await call('PATCH', `/v1/notes/${note.body.note.id}`, {
      body: 'First',
      title: 'T',
      idempotency_key: 'cf-5',
    });
    expect(edited.status).toBe(200);
    expect(await changedFields(edited.body.request_id)).toEqual([['title']]);
  });

  it('calendar: the same', async () => {
    const calendar = await call('POST', '/v1/calendar/calendars', { name: 'Team', idempotency_key: 'cf-6' });
    expect(calendar.status).toBe(201);
    expect(await changedFields(calendar.body.request_id)).toEqual([['name']]);
    const renamed = await call('PATCH', `/v1/calendar/calendars/${calendar.body.calendar.id}`, {
      name: 'Team',
      color: '#336699',
      idempotency_key: 'cf-7',
    });
    expect(renamed.status).toBe(200);
    expect(await changedFields(renamed.body.request_id)).toEqual([['color']]);
  });

  it('a PATCH without a field to change is validation_failed naming the fields it takes', async () => {
    const task = await call('POST', '/v1/tasks', { title: 'Patch me' });
    const empty = await call('PATCH', `/v1/tasks/${task.body.task.id}`, { idempotency_key: 'cf-8' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.field_errors).toEqual([
      { field: '(body)', message: 'send at least one of status, completed_note' },
    ]);
    // Sending the current state changes nothing: an audit event without fields, no domain event.
    const same = await call('PATCH', `/v1/tasks/${task.body.task.id}`, { status: 'open' });
    expect(same.status).toBe(200);
    expect(await changedFields(same.body.request_id)).toEqual([[]]);
    const events = await h.db
      .selectFrom('outbox_events')
      .select('id')
      .where('request_id', '=', same.body.request_id)
      .execute();
    expect(events).toEqual([]);
  });

  it('an upsert that sets the current value changes nothing, like any update', async () => {
    const body = {
      channel: 'in_app',
      event_type: 'task.completed',
      enabled: false,
      idempotency_key: 'cf-10',
    };
    const created = await call('POST', '/v1/notifications/preferences', body);
    expect(created.status).toBe(201);
    expect(await changedFields(created.body.request_id)).toEqual([['channel', 'event_type', 'enabled']]);
    const again = await call('POST', '/v1/notifications/preferences', { ...body, idempotency_key: 'cf-11' });
    expect(again.status).toBe(200);
    expect(again.body.preference).toEqual(created.body.preference);
    expect(await changedFields(again.body.request_id)).toEqual([[]]);
    const events = await h.db
      .selectFrom('outbox_events')
      .select('id')
      .where('request_id', '=', again.body.request_id)
      .execute();
    expect(events).toEqual([]);
    const flipped = await call('POST', '/v1/notifications/preferences', { ...body, enabled: true });
    expect(await changedFields(flipped.body.request_id)).toEqual([['enabled']]);
  });
});

// A handler that passes its whole input as changed fields: the pipeline still records neither control field.
const echoModule: ModuleDefinition = {
  name: 'tasks',
  operations: [
    defineOperation({
      name: 'echo_fields',
      module: 'tasks',
      scopes: ['tasks:write'],
      kind: 'action',
      dryRun: true,
      summary: 'Audit the input (test only)',
      description: 'Writes an audit event naming every input field, control fields included (tests only).',
      input: Strict({ task_id: Type.String(), label: Type.String() }),
      rest: { method: 'POST', path: '/v1/test-echo' },
      responseKey: 'fields',
      response: Type.Object({ fields: Type.Array(Type.String()) }, { additionalProperties: false }),
      handler: async (ctx, input) => {
        ctx.audit({ targetType: 'task', targetId: input.task_id, changedFields: Object.keys(input) });
        return { body: { fields: Object.keys(input) } };
      },
    }),
  ],
};

describe('the pipeline', () => {
  let e: Harness;
  let ews: TestWorkspace;
  beforeAll(async () => {
    e = await Harness.start({ registry: buildRegistry([tasksModule, echoModule]) });
    ews = await e.workspace();
  });
  afterAll(() => e.close());

  it('strips idempotency_key and dry_run from every audit event, whatever the handler passed', async () => {
    const echoed = await e.request('POST', '/v1/test-echo', {
      token: ews.apiKey,
      body: { task_id: 'tsk_1', label: 'x', idempotency_key: 'cf-9', dry_run: false },
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body.fields.sort()).toEqual(['dry_run', 'idempotency_key', 'label', 'task_id']);
    const rows = await e.db
      .selectFrom('audit_events')
      .select('changed_fields')
      .where('request_id', '=', echoed.body.request_id)
      .execute();
    expect(rows.map((row) => JSON.parse(row.changed_fields))).toEqual([['task_id', 'label']]);
  });
});
