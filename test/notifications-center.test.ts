// Notifications: preferences, notifications, rules on domain events, and module-before-scope checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other');
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });

describe('preferences', () => {
  it('upserts one preference per recipient, channel and event type, and patches it by ID', async () => {
    const created = await call('POST', '/v1/notifications/preferences', {
      recipient_id: 'u-pref',
      channel: 'web_push',
      enabled: false,
    });
    expect(created.status).toBe(201);
    expect(created.body.preference).toMatchObject({
      recipient_id: 'u-pref',
      channel: 'web_push',
      event_type: '*',
      enabled: false,
    });
    const again = await call('POST', '/v1/notifications/preferences', {
      recipient_id: 'u-pref',
      channel: 'web_push',
      enabled: true,
    });
    expect(again.status).toBe(200);
    expect(again.body.preference).toMatchObject({ id: created.body.preference.id, enabled: true });
    const workspaceDefault = await h.callTool(ws.mcpToken, 'update_notification_preference', {
      channel: 'webhook',
      event_type: 'task.completed',
      enabled: false,
    });
    expect(workspaceDefault.body.preference).toMatchObject({
      recipient_id: null,
      event_type: 'task.completed',
    });

    const patched = await call('PATCH', `/v1/notifications/preferences/${created.body.preference.id}`, {
      enabled: false,
    });
    expect(patched.body.preference.enabled).toBe(false);
    const stored = await h.db
      .selectFrom('notification_preferences')
      .selectAll()
      .where('id', '=', created.body.preference.id)
      .executeTakeFirstOrThrow();
    expect(stored.enabled).toBe(0);
    expect(
      (await call('GET', '/v1/notifications/preferences?recipient_id=u-pref')).body.preferences,
    ).toHaveLength(1);
    expect(
      (await call('GET', '/v1/notifications/preferences?workspace_default=true')).body.preferences,
    ).toHaveLength(1);

    expect(
      (
        await call(
          'PATCH',
          `/v1/notifications/preferences/${created.body.preference.id}`,
          { enabled: true },
          other.apiKey,
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await call(
          'GET',
          `/v1/notifications/preferences/${created.body.preference.id}`,
          undefined,
          other.apiKey,
        )
      ).status,
    ).toBe(404);
    expect(
      (await call('POST', '/v1/notifications/preferences', { channel: 'sms', enabled: true })).status,
    ).toBe(400);
  });
});

describe('notifications', () => {
  it('creates, lists and marks notifications, with idempotent replays', async () => {
    const task = (await call('POST', '/v1/tasks', { title: 'Source' })).body.task;
    const body = {
      recipient_id: 'u-1',
      title: 'Hello',
      body: 'World',
      source_type: 'task',
      source_id: task.id,
      idempotency_key: 'n-1',
    };
    const created = await call('POST', '/v1/notifications', body);
    expect(created.status).toBe(201);
    const notification = created.body.notification;
    expect(notification).toMatchObject({
      id: expect.stringMatching(/^ntf_/),
      status: 'delivered',
      channels: ['in_app', 'web_push', 'webhook'],
      skipped_channels: [],
      source_type: 'task',
      source_id: task.id,
      read_at: null,
    });
    expect((await call('POST', '/v1/notifications', body)).body.notification.id).toBe(notification.id);
    expect((await call('POST', '/v1/notifications', { ...body, title: 'Changed' })).status).toBe(409);

    const foreign = (await call('POST', '/v1/tasks', { title: 'Theirs' }, other.apiKey)).body.task;
    const notFound = await call('POST', '/v1/notifications', {
      recipient_id: 'u-1',
      title: 'x',
      source_type: 'task',
      source_id: foreign.id,
    });
    expect(notFound.status).toBe(404);
    const half = await call('POST', '/v1/notifications', {
      recipient_id: 'u-1',
      title: 'x',
      source_id: task.id,
    });
    expect(half.body.error.field_errors[0].field).toBe('source_type');

    const read = await call('PATCH', `/v1/notifications/${notification.id}`, { status: 'read' });
    expect(read.body.notification).toMatchObject({ status: 'read', read_at: expect.any(String) });
    const archived = await h.callTool(ws.mcpToken, 'update_notification', {
      notification_id: notification.id,
      status: 'archived',
    });
    expect(archived.body.notification).toMatchObject({
      status: 'archived',
      read_at: read.body.notification.read_at,
    });
    expect(
      (await call('PATCH', `/v1/notifications/${notification.id}`, { status: 'read' }, other.apiKey)).status,
    ).toBe(404);
    expect((await call('GET', `/v1/notifications/${notification.id}`, undefined, other.apiKey)).status).toBe(
      404,
    );
    expect(
      (await call('GET', '/v1/notifications?recipient_id=u-1&status=archived')).body.notifications.map(
        (n: any) => n.id,
      ),
    ).toEqual([notification.id]);
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('target_id', '=', notification.id)
      .execute();
    expect(events.map((e) => e.name).sort()).toEqual([
      'notification.created',
      'notification.updated',
      'notification.updated',
    ]);
  });

  it('skips disabled channels and suppresses a notification with none left', async () => {
    for (const channel of ['in_app', 'web_push']) {
      await call('POST', '/v1/notifications/preferences', {
        recipient_id: 'u-quiet',
        channel,
        enabled: false,
      });
    }
    const partly = await call('POST', '/v1/notifications', { recipient_id: 'u-quiet', title: 'Some' });
    expect(partly.body.notification).toMatchObject({
      channels: ['webhook'],
      skipped_channels: ['in_app', 'web_push'],
      status: 'suppressed',
    });
    // A recipient setting beats the workspace default; the workspace default beats nothing.
    await call('POST', '/v1/notifications/preferences', {
      channel: 'in_app',
      event_type: 'deal.won',
      enabled: false,
    });
    await call('POST', '/v1/notifications/preferences', {
      recipient_id: 'u-loud',
      channel: 'in_app',
      event_type: 'deal.won',
      enabled: true,
    });
    const loud = await call('POST', '/v1/notifications', {
      recipient_id: 'u-loud',
      title: 'Won',
      event_type: 'deal.won',
      channels: ['in_app'],
    });
    expect(loud.body.notification.status).toBe('delivered');
    const muted = await call('POST', '/v1/notifications', {
      recipient_id: 'u-other',
      title: 'Won',
      event_type: 'deal.won',
      channels: ['in_app'],
    });
    expect(muted.body.notification).toMatchObject({
      status: 'suppressed',
      channels: [],
      skipped_channels: ['in_app'],
    });
  });
});

describe('rules', () => {
  it('turns a task completion into notifications when the relay hands the event on, respecting a disabled preference', async () => {
    const bad = await call('POST', '/v1/notifications/rules', {
      name: 'Loop',
      event_type: 'notification.created',
      recipient_ids: ['x'],
      title: 't',
    });
    expect(bad.body.error.field_errors[0].field).toBe('event_type');
    const unknown = await call('POST', '/v1/notifications/rules', {
      name: 'Nope',
      event_type: 'nope.never',
      recipient_ids: ['x'],
      title: 't',
    });
    expect(unknown.body.error.field_errors[0].field).toBe('event_type');
    const nobody = await call('POST', '/v1/notifications/rules', {
      name: 'Nobody',
      event_type: 'task.completed',
      title: 't',
    });
    expect(nobody.body.error.field_errors[0].field).toBe('recipient_ids');

    const body = {
      name: 'Task done',
      event_type: 'task.completed',
      conditions: [{ field: 'assignee_id', operator: 'in', value: ['alice', 'bob'] }],
      recipient_field: 'assignee_id',
      recipient_ids: ['manager'],
      channels: ['in_app'],
      title: 'Done: {{title}}',
      body: 'Note: {{completed_note}}',
      idempotency_key: 'rule-1',
    };
    const rule = await call('POST', '/v1/notifications/rules', body);
    expect(rule.status).toBe(201);
    expect((await call('POST', '/v1/notifications/rules', body)).body.rule.id).toBe(rule.body.rule.id);
    expect((await call('POST', '/v1/notifications/rules', { ...body, name: 'Other' })).status).toBe(409);
    await call('POST', '/v1/notifications/preferences', {
      recipient_id: 'manager',
      channel: 'in_app',
      event_type: 'task.completed',
      enabled: false,
    });

    const task = (await call('POST', '/v1/tasks', { title: 'Ship it', assignee_id: 'alice' })).body.task;
    const done = await call('PATCH', `/v1/tasks/${task.id}`, {
      status: 'completed',
      completed_note: 'shipped',
    });
    // The write commits its own rows only; the rule fires when the relay passes.
    expect(
      await h.db
        .selectFrom('notifications')
        .selectAll()
        .where('workspace_id', '=', ws.id)
        .where('event_id', 'is not', null)
        .execute(),
    ).toEqual([]);
    await h.relay();
    const made = await h.db
      .selectFrom('notifications')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('event_id', 'is not', null)
      .execute();
    const byRecipient = Object.fromEntries(made.map((n) => [n.recipient_id, n]));
    expect(byRecipient.alice).toMatchObject({
      title: 'Done: Ship it',
      body: 'Note: shipped',
      status: 'delivered',
      source_type: 'task',
      source_id: task.id,
      rule_id: rule.body.rule.id,
      event_type: 'task.completed',
    });
    expect(byRecipient.manager).toMatchObject({
      status: 'suppressed',
      channels: '[]',
      skipped_channels: '["in_app"]',
    });
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', done.body.request_id)
      .where('target_type', '=', 'notification')
      .execute();
    expect(audits).toHaveLength(2);
    expect(audits[0]).toMatchObject({ actor_type: 'system', tool: 'notification_rule', surface: 'system' });
    // caused_by names the event that fired the rule.
    const fired = await h.db
      .selectFrom('outbox_events')
      .select('id')
      .where('request_id', '=', done.body.request_id)
      .where('name', '=', 'task.completed')
      .executeTakeFirstOrThrow();
    expect(audits[0]!.caused_by).toBe(fired.id);
    const outbox = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', done.body.request_id)
      .execute();
    expect(outbox.map((e) => e.name).sort()).toEqual([
      'notification.created',
      'notification.created',
      'task.completed',
    ]);

    const carol = (await call('POST', '/v1/tasks', { title: 'Not hers', assignee_id: 'carol' })).body.task;
    await call('PATCH', `/v1/tasks/${carol.id}`, { status: 'completed' });
    await h.relay();
    expect(
      await h.db.selectFrom('notifications').selectAll().where('source_id', '=', carol.id).execute(),
    ).toEqual([]);

    const disabled = await call('PATCH', `/v1/notifications/rules/${rule.body.rule.id}`, {
      status: 'disabled',
    });
    expect(disabled.body.rule.status).toBe('disabled');
    const later = (await call('POST', '/v1/tasks', { title: 'Later', assignee_id: 'bob' })).body.task;
    await call('PATCH', `/v1/tasks/${later.id}`, { status: 'completed' });
    await h.relay();
    expect(
      await h.db.selectFrom('notifications').selectAll().where('source_id', '=', later.id).execute(),
    ).toEqual([]);

    expect((await call('GET', '/v1/notifications/rules?event_type=task.completed')).body.rules).toHaveLength(
      1,
    );
    expect(
      (
        await call(
          'PATCH',
          `/v1/notifications/rules/${rule.body.rule.id}`,
          { status: 'active' },
          other.apiKey,
        )
      ).status,
    ).toBe(404);
    expect(
      (await call('GET', `/v1/notifications/rules/${rule.body.rule.id}`, undefined, other.apiKey)).status,
    ).toBe(404);
  });
});

describe('rule templates', () => {
  it("resolve only the event data's own properties: inherited names render empty like unknown paths", async () => {
    const rule = await call('POST', '/v1/notifications/rules', {
      name: 'Prototype probe',
      event_type: 'lead.created',
      recipient_ids: ['probe-reader'],
      channels: ['in_app'],
      title:
        'T[{{__proto__}}][{{constructor}}][{{toString}}][{{custom_fields.constructor}}][{{custom_fields.__proto__}}][{{name}}]',
      body: '{{hasOwnProperty}}{{__proto__.constructor}}{{constructor.name}}{{custom_fields.valueOf}}{{nope.constructor}}|{{custom_fields.tier}}|{{custom_fields}}',
    });
    expect(rule.status).toBe(201);
    const lead = (await call('POST', '/v1/leads', { name: 'Probe', custom_fields: { tier: 'gold' } })).body
      .lead;
    await h.relay();
    const made = await h.db
      .selectFrom('notifications')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('source_id', '=', lead.id)
      .execute();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      recipient_id: 'probe-reader',
      title: 'T[][][][][][Probe]',
      body: '|gold|{"tier":"gold"}',
    });
  });
});

describe('module and scope checks', () => {
  it('answers module_not_enabled before any scope check', async () => {
    const off = await h.workspace('No notifications', ['crm', 'tasks']);
    const limited = await h.createCredential(off.id, 'api_key', ['crm:read']);
    for (const [method, url] of [
      ['GET', '/v1/notifications'],
      ['POST', '/v1/notifications'],
      ['PATCH', '/v1/notifications/ntf_x'],
      ['GET', '/v1/notifications/rules'],
      ['POST', '/v1/notifications/preferences'],
      ['PATCH', '/v1/notifications/preferences/npref_x'],
      ['GET', '/v1/notifications/subscriptions'],
    ] as const) {
      const res = await h.request(method, url, {
        token: limited.token,
        body: method === 'GET' ? undefined : {},
      });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.code).toBe('module_not_enabled');
    }
    const scoped = await h.createCredential(ws.id, 'api_key', ['notifications:read']);
    const denied = await h.request('POST', '/v1/notifications', {
      token: scoped.token,
      body: { recipient_id: 'x', title: 'x' },
    });
    expect(denied.body.error).toMatchObject({
      code: 'missing_required_scope',
      required_scope: 'notifications:write',
    });
  });
});
