// Analytics Sites through the real app: create (defaults, origin rules), replay, list, lookup, update,
// archive, key rotation with its overlap, tenancy and scopes; and the origin matching ingest applies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeOrigin, originAllowed } from '../src/modules/product-analytics/site-origins.ts';
import { findSiteByKey } from '../src/modules/product-analytics/site-store.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Sites');
  other = await h.workspace('Other');
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const fieldsOf = (res: { body: any }) => res.body.error.field_errors.map((e: any) => e.field);
const eventsOf = async (requestId: string) =>
  (await h.db.selectFrom('outbox_events').select('name').where('request_id', '=', requestId).execute()).map(
    (e) => e.name,
  );
const auditOf = (requestId: string) =>
  h.db
    .selectFrom('audit_events')
    .select(['action', 'changed_fields', 'target_id'])
    .where('request_id', '=', requestId)
    .execute();
const siteCount = async (workspaceId: string) =>
  Number(
    (
      await h.db
        .selectFrom('analytics_sites')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );
const keysOf = (siteId: string) =>
  h.db
    .selectFrom('analytics_site_keys')
    .select(['key', 'expires_at'])
    .where('site_id', '=', siteId)
    .orderBy('created_at')
    .execute();
const later = (hours: number) => new Date(h.clock.now().getTime() + hours * 3_600_000).toISOString();

async function site(name: string, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/v1/insights/sites', {
    name,
    allowed_origins: ['https://shop.example.com'],
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.analytics_site;
}

describe('analytics sites', () => {
  it('creates a site with defaults, normalized origins and a fresh key', async () => {
    const res = await call('POST', '/v1/insights/sites', {
      name: 'Storefront',
      allowed_origins: ['https://Shop.Example.com:443', 'http://localhost:5173', 'https://*.Example.com'],
    });
    expect(res.status, res.text).toBe(201);
    const created = res.body.analytics_site;
    expect(created).toMatchObject({
      name: 'Storefront',
      allowed_origins: ['https://shop.example.com', 'http://localhost:5173', 'https://*.example.com'],
      allowed_apps: [],
      validation_mode: 'off',
      events_per_minute: 6000,
      daily_quota: 1_000_000,
      status: 'active',
      previous_key: null,
      archived_at: null,
    });
    expect(created.id).toMatch(/^asite_/);
    expect(created.site_key).toMatch(/^wos_site_[A-Za-z0-9_-]{43}$/);
    expect(await keysOf(created.id)).toEqual([{ key: created.site_key, expires_at: null }]);
    expect(await eventsOf(res.body.request_id)).toEqual(['analytics_site.created']);
    const [audit] = await auditOf(res.body.request_id);
    expect(audit).toMatchObject({ action: 'create', target_id: created.id });
    expect(JSON.parse(audit!.changed_fields)).toEqual(['name', 'allowed_origins']);

    const second = await site('Second', {
      allowed_apps: ['shop', 'admin'],
      validation_mode: 'enforce',
      events_per_minute: 100,
      daily_quota: 5000,
      status: 'paused',
    });
    expect(second).toMatchObject({
      allowed_apps: ['shop', 'admin'],
      validation_mode: 'enforce',
      status: 'paused',
    });
    expect(second.site_key).not.toBe(created.site_key);
  });

  it('refuses bad origins, limits and unknown fields by name, storing nothing', async () => {
    const before = await siteCount(ws.id);
    const origins = await call('POST', '/v1/insights/sites', {
      name: 'Bad',
      allowed_origins: [
        'https://ok.example.com',
        'https://shop.example.com/path',
        '*',
        'ftp://files.example.com',
        'https://a.*.example.com',
        'https://*.com',
        'https://shop.example.com?x=1',
        'shop.example.com',
      ],
    });
    expect(origins.status).toBe(400);
    expect(origins.body.error.code).toBe('validation_failed');
    expect(fieldsOf(origins)).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => `allowed_origins[${i}]`));

    const limits = await call('POST', '/v1/insights/sites', {
      name: '',
      allowed_origins: [],
      events_per_minute: 0,
      daily_quota: 1_000_000_001,
      validation_mode: 'strict',
    });
    expect(limits.status).toBe(400);
    expect(fieldsOf(limits).sort()).toEqual(
      ['allowed_origins', 'daily_quota', 'events_per_minute', 'name', 'validation_mode'].sort(),
    );
    const unknown = await call('POST', '/v1/insights/sites', {
      name: 'Unknown',
      allowed_origins: ['https://shop.example.com'],
      site_key: 'wos_site_mine',
    });
    expect(unknown.status).toBe(400);
    expect(fieldsOf(unknown)).toEqual(['site_key']);
    expect(await siteCount(ws.id)).toBe(before);
  });

  it('replays a create with the same idempotency key', async () => {
    const body = { name: 'Replayed', allowed_origins: ['https://r.example.com'], idempotency_key: 'site-1' };
    const first = await call('POST', '/v1/insights/sites', body);
    expect(first.status).toBe(201);
    const again = await call('POST', '/v1/insights/sites', body);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.analytics_site).toEqual(first.body.analytics_site);
    expect(await eventsOf(again.body.request_id)).toEqual([]);
    const changed = await call('POST', '/v1/insights/sites', { ...body, name: 'Other name' });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('idempotency_conflict');
  });

  it('lists newest first with a cursor and filters, and looks a site up (REST and get_record)', async () => {
    const fresh = await h.workspace('Listing');
    const as = (method: string, url: string, body?: unknown) => call(method, url, body, fresh.apiKey);
    const ids: string[] = [];
    for (const name of ['Alpha shop', 'Beta blog', 'Gamma shop']) {
      const res = await as('POST', '/v1/insights/sites', {
        name,
        allowed_origins: ['https://x.example.com'],
        ...(name.startsWith('Beta') ? { status: 'paused' } : {}),
      });
      ids.push(res.body.analytics_site.id);
    }
    const page1 = await as('GET', '/v1/insights/sites?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.analytics_sites.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.analytics_sites[0].site_key).toMatch(/^wos_site_/);
    const page2 = await as('GET', `/v1/insights/sites?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.analytics_sites.map((s: any) => s.id)).toEqual([ids[0]]);
    expect(page2.body.next_cursor).toBeUndefined();
    const mismatched = await as(
      'GET',
      `/v1/insights/sites?limit=2&status=active&cursor=${page1.body.next_cursor}`,
    );
    expect(fieldsOf(mismatched)).toEqual(['cursor']);

    const paused = await as('GET', '/v1/insights/sites?status=paused');
    expect(paused.body.analytics_sites.map((s: any) => s.id)).toEqual([ids[1]]);
    const shops = await as('GET', '/v1/insights/sites?query=SHOP');
    expect(shops.body.analytics_sites.map((s: any) => s.id)).toEqual([ids[2], ids[0]]);
    const viaMcp = await h.callTool(fresh.mcpToken, 'list_analytics_sites', { query: 'blog' });
    expect(viaMcp.body.analytics_sites.map((s: any) => s.id)).toEqual([ids[1]]);

    const one = await as('GET', `/v1/insights/sites/${ids[0]}`);
    expect(one.status).toBe(200);
    expect(one.body.analytics_site).toEqual(page2.body.analytics_sites[0]);
    const record = await h.callTool(fresh.mcpToken, 'get_record', { type: 'analytics_site', id: ids[0] });
    expect(record.body.record).toEqual(one.body.analytics_site);
    expect((await as('GET', '/v1/insights/sites/asite_missing')).status).toBe(404);
  });

  it('updates settings, normalizing origins, and emits only on a change', async () => {
    const created = await site('To update');
    const res = await call('PATCH', `/v1/insights/sites/${created.id}`, {
      allowed_origins: ['https://NEW.example.com', 'https://new.example.com'],
      allowed_apps: ['shop'],
      status: 'paused',
      events_per_minute: 60,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.analytics_site).toMatchObject({
      name: 'To update',
      allowed_origins: ['https://new.example.com'],
      allowed_apps: ['shop'],
      status: 'paused',
      events_per_minute: 60,
      site_key: created.site_key,
    });
    expect(await eventsOf(res.body.request_id)).toEqual(['analytics_site.updated']);
    const [audit] = await auditOf(res.body.request_id);
    expect(JSON.parse(audit!.changed_fields).sort()).toEqual(
      ['allowed_apps', 'allowed_origins', 'events_per_minute', 'status'].sort(),
    );
    const same = await call('PATCH', `/v1/insights/sites/${created.id}`, {
      allowed_origins: ['https://new.example.com'],
      status: 'paused',
    });
    expect(same.status).toBe(200);
    expect(await eventsOf(same.body.request_id)).toEqual([]);

    const empty = await call('PATCH', `/v1/insights/sites/${created.id}`, {});
    expect(fieldsOf(empty)).toEqual(['(body)']);
    const bad = await call('PATCH', `/v1/insights/sites/${created.id}`, {
      allowed_origins: ['https://x.com/'],
    });
    expect(fieldsOf(bad)).toEqual(['allowed_origins[0]']);
    const rateless = await call('PATCH', `/v1/insights/sites/${created.id}`, { daily_quota: 0 });
    expect(fieldsOf(rateless)).toEqual(['daily_quota']);
  });

  it('archives a site: gone from reads and writes, its key still found by ingest as archived', async () => {
    const created = await site('To archive');
    const res = await call('DELETE', `/v1/insights/sites/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body.analytics_site.archived_at).toBe(h.clock.now().toISOString());
    expect(await eventsOf(res.body.request_id)).toEqual(['analytics_site.archived']);
    expect((await call('GET', `/v1/insights/sites/${created.id}`)).status).toBe(404);
    expect((await call('PATCH', `/v1/insights/sites/${created.id}`, { name: 'x' })).status).toBe(404);
    expect((await call('POST', `/v1/insights/sites/${created.id}/rotate-key`, {})).status).toBe(404);
    const listed = await call('GET', '/v1/insights/sites?limit=100');
    expect(listed.body.analytics_sites.map((s: any) => s.id)).not.toContain(created.id);
    const again = await call('DELETE', `/v1/insights/sites/${created.id}`);
    expect(again.status).toBe(200);
    expect(again.body.analytics_site.archived_at).toBe(res.body.analytics_site.archived_at);
    expect(await eventsOf(again.body.request_id)).toEqual([]);
    const found = await findSiteByKey(h.db, created.site_key);
    expect(found?.site).toMatchObject({ id: created.id, archived_at: res.body.analytics_site.archived_at });
  });

  it('rotates the key: the old one works for the overlap, older ones are cut to it', async () => {
    const created = await site('Rotating');
    // Keys minted in the same millisecond would tie on created_at: keep the order observable.
    h.clock.advance(1000);
    const first = await call('POST', `/v1/insights/sites/${created.id}/rotate-key`, {});
    expect(first.status, first.text).toBe(200);
    const k2 = first.body.analytics_site.site_key;
    expect(k2).toMatch(/^wos_site_/);
    expect(k2).not.toBe(created.site_key);
    expect(first.body.analytics_site.previous_key).toEqual({
      site_key: created.site_key,
      expires_at: later(24),
    });
    expect(await eventsOf(first.body.request_id)).toEqual(['analytics_site.key_rotated']);
    expect((await auditOf(first.body.request_id))[0]).toMatchObject({ action: 'rotate_key' });
    expect(await findSiteByKey(h.db, created.site_key)).toMatchObject({ expiresAt: later(24) });
    expect(await findSiteByKey(h.db, k2)).toMatchObject({ expiresAt: null });
    expect((await call('GET', `/v1/insights/sites/${created.id}`)).body.analytics_site).toEqual(
      first.body.analytics_site,
    );

    h.clock.advance(60_000);
    const second = await call('POST', `/v1/insights/sites/${created.id}/rotate-key`, { overlap_hours: 2 });
    const k3 = second.body.analytics_site.site_key;
    expect(second.body.analytics_site.previous_key).toEqual({ site_key: k2, expires_at: later(2) });
    // The first key would have worked for 24 h: cut to the new overlap's end.
    expect(await keysOf(created.id)).toEqual([
      { key: created.site_key, expires_at: later(2) },
      { key: k2, expires_at: later(2) },
      { key: k3, expires_at: null },
    ]);

    h.clock.advance(2 * 3_600_000);
    const expired = await call('GET', `/v1/insights/sites/${created.id}`);
    expect(expired.body.analytics_site).toMatchObject({ site_key: k3, previous_key: null });

    const now = await call('POST', `/v1/insights/sites/${created.id}/rotate-key`, { overlap_hours: 0 });
    expect(now.body.analytics_site.previous_key).toBeNull();
    expect(await findSiteByKey(h.db, k3)).toMatchObject({ expiresAt: h.clock.now().toISOString() });

    const tooLong = await call('POST', `/v1/insights/sites/${created.id}/rotate-key`, { overlap_hours: 169 });
    expect(fieldsOf(tooLong)).toEqual(['overlap_hours']);
    const viaMcp = await h.callTool(ws.mcpToken, 'rotate_analytics_site_key', { site_id: created.id });
    expect(viaMcp.body.analytics_site.previous_key).toEqual({
      site_key: now.body.analytics_site.site_key,
      expires_at: later(24),
    });
  });

  it("answers 404 for another workspace's site", async () => {
    const created = await site('Mine');
    const theirs = (method: string, url: string, body?: unknown) => call(method, url, body, other.apiKey);
    expect((await theirs('GET', `/v1/insights/sites/${created.id}`)).status).toBe(404);
    expect((await theirs('PATCH', `/v1/insights/sites/${created.id}`, { name: 'x' })).status).toBe(404);
    expect((await theirs('POST', `/v1/insights/sites/${created.id}/rotate-key`, {})).status).toBe(404);
    expect((await theirs('DELETE', `/v1/insights/sites/${created.id}`)).status).toBe(404);
    const listed = await theirs('GET', '/v1/insights/sites');
    expect(listed.body.analytics_sites).toEqual([]);
    const record = await h.callTool(other.mcpToken, 'get_record', { type: 'analytics_site', id: created.id });
    expect(record.result.isError).toBe(true);
    expect((await call('GET', `/v1/insights/sites/${created.id}`)).body.analytics_site.name).toBe('Mine');
  });

  it('needs analytics:write to manage sites and analytics:read to read them', async () => {
    const created = await site('Scoped');
    const reader = (await h.createCredential(ws.id, 'api_key', ['analytics:read'])).token;
    const writer = (await h.createCredential(ws.id, 'api_key', ['analytics:write'])).token;
    const denied = await call(
      'POST',
      '/v1/insights/sites',
      { name: 'x', allowed_origins: ['https://a.b.c'] },
      reader,
    );
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'missing_required_scope',
      required_scope: 'analytics:write',
    });
    expect((await call('POST', `/v1/insights/sites/${created.id}/rotate-key`, {}, reader)).status).toBe(403);
    expect((await call('GET', `/v1/insights/sites/${created.id}`, undefined, reader)).status).toBe(200);
    const blind = await call('GET', '/v1/insights/sites', undefined, writer);
    expect(blind.status).toBe(403);
    expect(blind.body.error.required_scope).toBe('analytics:read');
  });
});

describe('origin rules', () => {
  it('stores origins as browsers send them and refuses anything else', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example.COM:443')).toEqual({ origin: 'https://shop.example.com' });
    expect(normalizeOrigin('http://127.0.0.1:8080')).toEqual({ origin: 'http://127.0.0.1:8080' });
    expect(normalizeOrigin('https://bücher.example')).toEqual({ origin: 'https://xn--bcher-kva.example' });
    expect(normalizeOrigin('https://*.example.com:8443')).toEqual({ origin: 'https://*.example.com:8443' });
    for (const bad of [
      '*',
      'https://*',
      'https://*.1.2.3',
      'https://user@x.com',
      'https://x.com#a',
      'null',
      'https://shop.example.com/',
      'https://shop.example.com/path',
      'https://sh%6Fp.example.com',
      'https://shop.example.com:08443',
      'https://shop.example.com:',
      'https://shop.example.com:0',
      'http://127.1',
      'http://[0:0::1]:3000',
      'https://sho\tp.example.com',
    ]) {
      expect(normalizeOrigin(bad), bad).toHaveProperty('error');
    }
  });

  it('matches exact scheme, host and port, and wildcard subdomains only', () => {
    const allowed = ['https://shop.example.com', 'http://localhost:5173', 'https://*.example.org'];
    expect(originAllowed(allowed, 'https://shop.example.com')).toBe(true);
    // Only the serialization browsers send matches: never upper case, a default or padded port, a path.
    for (const unsent of [
      'https://SHOP.example.com',
      'https://shop.example.com:443',
      'https://shop.example.com/',
      'https://shop.example.com/path',
      'https://user@shop.example.com',
      'https://sh%6Fp.example.com',
      'http://localhost:05173',
      'https://a.example.org/x',
      ' https://shop.example.com',
    ]) {
      expect(originAllowed(allowed, unsent), unsent).toBe(false);
    }
    expect(originAllowed(allowed, 'http://shop.example.com')).toBe(false);
    expect(originAllowed(allowed, 'https://shop.example.com:8443')).toBe(false);
    expect(originAllowed(allowed, 'http://localhost:5173')).toBe(true);
    expect(originAllowed(allowed, 'http://localhost:5174')).toBe(false);
    expect(originAllowed(allowed, 'https://a.example.org')).toBe(true);
    expect(originAllowed(allowed, 'https://a.b.example.org')).toBe(true);
    expect(originAllowed(allowed, 'https://example.org')).toBe(false);
    expect(originAllowed(allowed, 'https://evilexample.org')).toBe(false);
    expect(originAllowed(allowed, 'http://a.example.org')).toBe(false);
    expect(originAllowed(allowed, 'null')).toBe(false);
    expect(originAllowed(allowed, undefined)).toBe(false);
  });
});
