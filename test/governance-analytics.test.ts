// Analytics governance: property and event definitions, tracking plans, and validate_event's error kinds.
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
const count = async (table: 'audit_events' | 'outbox_events') =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', ws.id)
        .executeTakeFirstOrThrow()
    ).n,
  );

let planId: string;

describe('definitions', () => {
  it('defines properties, redefines them by name, and replays idempotent calls', async () => {
    const body = {
      name: 'plan_tier',
      type: 'string',
      enum: ['free', 'pro'],
      description: 'Billing tier',
      idempotency_key: 'p-1',
    };
    const created = await call('POST', '/v1/analytics/properties', body);
    expect(created.status).toBe(201);
    expect(created.body.property).toMatchObject({
      id: expect.stringMatching(/^aprop_/),
      name: 'plan_tier',
      enum: ['free', 'pro'],
    });
    const replay = await call('POST', '/v1/analytics/properties', body);
    expect(replay.status).toBe(200);
    expect(replay.body.property.id).toBe(created.body.property.id);
    expect((await call('POST', '/v1/analytics/properties', { ...body, type: 'integer' })).status).toBe(409);
    const redefined = await call('POST', '/v1/analytics/properties', {
      name: 'plan_tier',
      type: 'string',
      enum: ['free', 'pro', 'team'],
    });
    expect(redefined.status).toBe(200);
    expect(redefined.body.property).toMatchObject({
      id: created.body.property.id,
      enum: ['free', 'pro', 'team'],
    });

    for (const property of [
      { name: 'amount', type: 'number' },
      { name: 'seats', type: 'integer' },
      { name: 'coupon', type: 'string', pattern: '^[A-Z]{4}-\\d{2}$' },
      { name: 'renewed_at', type: 'datetime' },
      { name: 'is_trial', type: 'boolean' },
    ]) {
      expect((await call('POST', '/v1/analytics/properties', property)).status).toBe(201);
    }
    const mcp = await h.callTool(ws.mcpToken, 'define_property', { name: 'tags', type: 'array' });
    expect(mcp.body.property.type).toBe('array');
  });

  it('rejects inconsistent property rules', async () => {
    const cases = [
      [{ name: 'n1', type: 'number', pattern: '^1' }, 'pattern'],
      [{ name: 'n2', type: 'string', pattern: '(' }, 'pattern'],
      [{ name: 'n3', type: 'integer', enum: [1, 'two'] }, 'enum[1]'],
      [{ name: 'Bad Name', type: 'string' }, 'name'],
      [{ name: 'n4', type: 'text' }, 'type'],
    ] as const;
    for (const [body, field] of cases) {
      const res = await call('POST', '/v1/analytics/properties', body);
      expect(res.status).toBe(400);
      expect(res.body.error.field_errors[0].field).toBe(field);
    }
  });

  it('defines events over defined properties', async () => {
    const unknown = await call('POST', '/v1/analytics/events', {
      app: 'shop',
      name: 'order.completed',
      properties: [{ name: 'amount', required: true }, { name: 'nope' }],
    });
    expect(unknown.body.error.field_errors).toEqual([
      { field: 'properties[1].name', message: 'is not a defined property (define_property)' },
    ]);
    const body = {
      app: 'shop',
      name: 'order.completed',
      description: 'Checkout finished',
      properties: [
        { name: 'amount', required: true },
        { name: 'plan_tier', required: true },
        { name: 'coupon' },
        { name: 'seats' },
        { name: 'renewed_at' },
      ],
      idempotency_key: 'e-1',
    };
    const created = await call('POST', '/v1/analytics/events', body);
    expect(created.status).toBe(201);
    expect(created.body.event.properties[2]).toEqual({ name: 'coupon', required: false });
    expect((await call('POST', '/v1/analytics/events', body)).body.event.id).toBe(created.body.event.id);
    expect((await call('POST', '/v1/analytics/events', { ...body, status: 'deprecated' })).status).toBe(409);
    expect((await call('POST', '/v1/analytics/events', { app: 'shop', name: 'cart.viewed' })).status).toBe(
      201,
    );
    expect(
      (
        await call('POST', '/v1/analytics/events', {
          app: 'shop',
          name: 'legacy.clicked',
          status: 'deprecated',
        })
      ).status,
    ).toBe(201);
    expect((await call('POST', '/v1/analytics/events', { app: 'blog', name: 'post.read' })).status).toBe(201);
    expect((await call('POST', '/v1/analytics/events', { app: 'shop', name: 'notdotted' })).status).toBe(400);

    const shop = (await call('GET', '/v1/analytics/events?app=shop')).body.events.map((e: any) => e.name);
    expect(shop).toEqual(['legacy.clicked', 'cart.viewed', 'order.completed']);
    const deprecated = await h.callTool(ws.mcpToken, 'list_events', { status: 'deprecated' });
    expect(deprecated.body.events.map((e: any) => e.name)).toEqual(['legacy.clicked']);
    expect((await call('GET', '/v1/analytics/events?query=checkout')).body.events).toHaveLength(1);
  });
});

describe('tracking plans', () => {
  it('creates, activates, edits and archives a plan, keeping its history', async () => {
    const bad = await call('POST', '/v1/analytics/tracking-plans', {
      name: 'Shop',
      app: 'shop',
      events: ['post.read'],
    });
    expect(bad.body.error.field_errors).toEqual([
      { field: 'events[0]', message: 'post.read is not a defined event of app shop' },
    ]);
    const body = { name: 'Shop v1', app: 'shop', events: ['order.completed'], idempotency_key: 't-1' };
    const created = await call('POST', '/v1/analytics/tracking-plans', body);
    expect(created.status).toBe(201);
    expect(created.body.tracking_plan).toMatchObject({ status: 'draft', events: ['order.completed'] });
    planId = created.body.tracking_plan.id;
    expect((await call('POST', '/v1/analytics/tracking-plans', body)).body.tracking_plan.id).toBe(planId);
    expect((await call('POST', '/v1/analytics/tracking-plans', { ...body, name: 'Other' })).status).toBe(409);

    const activated = await call('PATCH', `/v1/analytics/tracking-plans/${planId}`, {
      status: 'active',
      events: ['order.completed', 'legacy.clicked'],
    });
    expect(activated.body.tracking_plan).toMatchObject({
      status: 'active',
      events: ['order.completed', 'legacy.clicked'],
    });
    const second = await call('POST', '/v1/analytics/tracking-plans', {
      name: 'Shop v2',
      app: 'shop',
      status: 'active',
    });
    expect(second.body.error.field_errors[0].field).toBe('status');
    const draft = await h.callTool(ws.mcpToken, 'create_tracking_plan', { name: 'Shop v2', app: 'shop' });
    expect(draft.body.tracking_plan.status).toBe('draft');
    expect(
      (await call('GET', '/v1/analytics/tracking-plans?app=shop&status=active')).body.tracking_plans.map(
        (p: any) => p.id,
      ),
    ).toEqual([planId]);

    const archived = await call('DELETE', `/v1/analytics/tracking-plans/${draft.body.tracking_plan.id}`);
    expect(archived.body.tracking_plan).toMatchObject({
      status: 'archived',
      archived_at: expect.any(String),
    });
    expect((await call('DELETE', `/v1/analytics/tracking-plans/${draft.body.tracking_plan.id}`)).status).toBe(
      200,
    );
    expect((await call('GET', `/v1/analytics/tracking-plans/${draft.body.tracking_plan.id}`)).status).toBe(
      404,
    );
    expect(
      (await call('PATCH', `/v1/analytics/tracking-plans/${draft.body.tracking_plan.id}`, { name: 'x' }))
        .status,
    ).toBe(404);
    expect(
      (await call('GET', '/v1/analytics/tracking-plans')).body.tracking_plans.map((p: any) => p.id),
    ).toEqual([planId]);
    const history = await call(
      'GET',
      `/v1/history?target_type=analytics_tracking_plan&target_id=${draft.body.tracking_plan.id}`,
    );
    expect(history.body.entries.map((e: any) => e.action)).toEqual(['archive', 'archive', 'create']);
    expect(history.body.entries[1].changed_fields).toEqual(['status', 'archived_at']);
  });

  it("answers 404 for another workspace's IDs", async () => {
    const property = (await call('GET', '/v1/analytics/events?app=shop')).body.events[0];
    const t = other.apiKey;
    expect((await call('GET', `/v1/analytics/events/${property.id}`, undefined, t)).status).toBe(404);
    expect((await call('GET', `/v1/analytics/tracking-plans/${planId}`, undefined, t)).status).toBe(404);
    expect(
      (await call('PATCH', `/v1/analytics/tracking-plans/${planId}`, { name: 'Stolen' }, t)).status,
    ).toBe(404);
    expect((await call('DELETE', `/v1/analytics/tracking-plans/${planId}`, undefined, t)).status).toBe(404);
    const validate = await call(
      'POST',
      '/v1/analytics/events/validate',
      { app: 'shop', event_name: 'order.completed', tracking_plan_id: planId },
      t,
    );
    expect(validate.status).toBe(404);
    const tier = (
      await h.db
        .selectFrom('analytics_properties')
        .select('id')
        .where('name', '=', 'plan_tier')
        .executeTakeFirstOrThrow()
    ).id;
    expect((await call('GET', `/v1/analytics/properties/${tier}`, undefined, t)).status).toBe(404);
    expect((await call('GET', `/v1/analytics/properties/${tier}`)).status).toBe(200);
  });
});

describe('validate_event', () => {
  const validate = (body: Record<string, unknown>) => call('POST', '/v1/analytics/events/validate', body);

  it('accepts a valid event and names the plan and definition', async () => {
    const audits = await count('audit_events');
    const events = await count('outbox_events');
    const res = await validate({
      app: 'shop',
      event_name: 'order.completed',
      object_type: 'order',
      object_id: 'ord_1',
      properties: {
        amount: 12.5,
        plan_tier: 'pro',
        coupon: 'SAVE-10',
        seats: 3,
        renewed_at: '2026-01-01T00:00:00Z',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      errors: [],
      tracking_plan_id: planId,
      matched_event: { name: 'order.completed' },
    });
    expect(res.body.request_id).toMatch(/^req_/);
    expect(await count('audit_events')).toBe(audits);
    expect(await count('outbox_events')).toBe(events);
  });

  it('reports each error kind', async () => {
    const res = await validate({
      app: 'shop',
      event_name: 'order.completed',
      object_type: 'order',
      object_id: 'ord_2',
      properties: {
        amount: 'twelve',
        plan_tier: 'gold',
        coupon: 'save10',
        seats: 2.5,
        renewed_at: 'yesterday',
        referrer: 'ad',
      },
    });
    expect(res.body.valid).toBe(false);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'properties.amount', message: 'must be of type number' },
        { field: 'properties.plan_tier', message: 'must be one of: free, pro, team' },
        { field: 'properties.coupon', message: 'must match the pattern ^[A-Z]{4}-\\d{2}$' },
        { field: 'properties.seats', message: 'must be of type integer' },
        {
          field: 'properties.renewed_at',
          message: 'must be an ISO 8601 date-time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
        },
        { field: 'properties.referrer', message: 'is not a property of this event' },
      ]),
    );
    expect(res.body.errors).toHaveLength(6);

    const missing = await validate({ app: 'shop', event_name: 'order.completed', properties: { amount: 1 } });
    expect(missing.body.errors).toEqual([
      { field: 'properties.plan_tier', message: 'is required by the event definition' },
    ]);

    const unknown = await h.callTool(ws.mcpToken, 'validate_event', {
      app: 'shop',
      event_name: 'order.refunded',
      properties: {},
    });
    expect(unknown.body).toMatchObject({
      valid: false,
      matched_event: null,
      errors: [{ field: 'event_name', message: 'is not a defined event of app shop' }],
    });

    const outside = await validate({ app: 'shop', event_name: 'cart.viewed' });
    expect(outside.body.errors).toEqual([{ field: 'event_name', message: 'is not in the tracking plan' }]);
    expect(outside.body.matched_event.name).toBe('cart.viewed');

    const deprecated = await validate({ app: 'shop', event_name: 'legacy.clicked' });
    expect(deprecated.body).toMatchObject({
      valid: true,
      warnings: [{ field: 'event_name', message: 'is deprecated' }],
    });

    const noPlan = await validate({ app: 'blog', event_name: 'post.read', properties: { extra: 1 } });
    expect(noPlan.body).toMatchObject({ valid: false, tracking_plan_id: null });
    expect(noPlan.body.errors).toEqual([
      { field: 'properties.extra', message: 'is not a property of this event' },
    ]);
  });
});
