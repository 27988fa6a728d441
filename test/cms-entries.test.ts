// CMS sites, collections and entries: field validation against the collection, slugs, status changes,
// the deprecated update_entry_status, search, idempotency and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let site: { id: string };
let products: { id: string; fields: unknown[] };

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('CMS');
  other = await h.workspace('Elsewhere');
  site = (await post('/v1/cms/sites', { name: 'Shop', domain: 'Shop.Example.com' })).body.site;
  products = (
    await post('/v1/cms/collections', {
      site_id: site.id,
      key: 'products',
      name: 'Products',
      fields: [
        { key: 'price', type: 'number', required: true },
        { key: 'summary', type: 'text' },
        { key: 'body', type: 'rich_text' },
        { key: 'in_stock', type: 'boolean' },
        { key: 'launch', type: 'date' },
        { key: 'homepage', type: 'url' },
        { key: 'related', type: 'reference', list: true },
        { key: 'photo', type: 'asset' },
        { key: 'labels', type: 'text', list: true },
      ],
    })
  ).body.collection;
});
afterAll(() => h.close());

function post(url: string, body: unknown, token = ws.apiKey) {
  return h.request('POST', url, { token, body });
}
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const entry = (body: Record<string, unknown>) =>
  post('/v1/cms/entries', { collection_id: products.id, ...body });
const fieldsOf = (res: { body: any }) =>
  res.body.error.field_errors.map((e: { field: string }) => e.field).sort();

describe('sites and collections', () => {
  it('creates a site with defaults and a unique domain', async () => {
    expect(site).toMatchObject({ name: 'Shop', domain: 'shop.example.com', default_locale: 'en' });
    const dup = await post('/v1/cms/sites', { name: 'Copy', domain: 'shop.example.com' });
    expect(dup.status).toBe(400);
    expect(dup.body.error.field_errors[0].field).toBe('domain');
    const bad = await post('/v1/cms/sites', { name: 'Bad', domain: 'not a host', default_locale: 'English' });
    expect(fieldsOf(bad)).toEqual(['default_locale', 'domain']);
    const listed = await get('/v1/cms/sites?query=shop');
    expect(listed.body.sites.map((s: { id: string }) => s.id)).toEqual([site.id]);
    const mcp = await h.callTool(ws.mcpToken, 'list_cms_sites', {});
    expect(mcp.body.sites.length).toBeGreaterThan(0);
  });

  it('validates field definitions and keeps collection keys unique within a site', async () => {
    expect(products.fields[0]).toEqual({
      key: 'price',
      type: 'number',
      label: null,
      required: true,
      list: false,
    });
    const dupKey = await post('/v1/cms/collections', { site_id: site.id, key: 'products', name: 'Again' });
    expect(dupKey.body.error.field_errors[0].field).toBe('key');
    const otherSite = (await post('/v1/cms/sites', { name: 'Blog' })).body.site;
    expect(
      (await post('/v1/cms/collections', { site_id: otherSite.id, key: 'products', name: 'Fine' })).status,
    ).toBe(201);
    const badDefs = await post('/v1/cms/collections', {
      site_id: site.id,
      key: 'bad',
      name: 'Bad',
      fields: [
        { key: 'a', type: 'text' },
        { key: 'a', type: 'number' },
        { key: 'b', type: 'color' },
        { key: 'c', type: 'text', unique: true },
      ],
    });
    expect(fieldsOf(badDefs)).toEqual(['fields[2].type', 'fields[3].unique']);
    const repeated = await post('/v1/cms/collections', {
      site_id: site.id,
      key: 'bad',
      name: 'Bad',
      fields: [
        { key: 'a', type: 'text' },
        { key: 'a', type: 'number' },
      ],
    });
    expect(repeated.body.error.field_errors).toEqual([
      { field: 'fields[1].key', message: 'repeats the field key a' },
    ]);
    const missingSite = await post('/v1/cms/collections', { site_id: 'site_missing', key: 'x', name: 'X' });
    expect(missingSite.status).toBe(404);
    const listed = await get(`/v1/cms/collections?site_id=${site.id}`);
    expect(listed.body.collections.map((c: { id: string }) => c.id)).toEqual([products.id]);
  });
});

describe('entry fields', () => {
  it('accepts fields matching the definitions and derives the slug', async () => {
    const res = await entry({
      title: 'Crème Brûlée Torch!',
      fields: {
        price: 1999,
        summary: 'Caramelise',
        in_stock: true,
        launch: '2026-12-01',
        homepage: 'https://example.com/torch',
        labels: ['kitchen'],
        body: null,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.entry).toMatchObject({
      site_id: site.id,
      collection_id: products.id,
      slug: 'creme-brulee-torch',
      status: 'draft',
      published_at: null,
      fields: {
        price: 1999,
        summary: 'Caramelise',
        in_stock: true,
        launch: '2026-12-01',
        labels: ['kitchen'],
      },
    });
    expect(res.body.entry.fields).not.toHaveProperty('body');
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['entry.created']);
  });

  it('names the failing field: missing required, unknown, wrong type, bad format', async () => {
    const missing = await entry({ title: 'No price', fields: { summary: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('validation_failed');
    expect(missing.body.error.field_errors).toEqual([{ field: 'fields.price', message: 'is required' }]);
    const unknown = await entry({ title: 'Unknown', fields: { price: 1, colour: 'red' } });
    expect(unknown.body.error.field_errors).toEqual([
      { field: 'fields.colour', message: 'is not a recognized field' },
    ]);
    const wrong = await entry({
      title: 'Wrong',
      fields: { price: '12', in_stock: 'yes', labels: ['ok', 3], launch: 'tomorrow', homepage: 'nope' },
    });
    expect(wrong.body.error.field_errors).toEqual(
      expect.arrayContaining([
        { field: 'fields.price', message: 'must be of type number' },
        { field: 'fields.in_stock', message: 'must be of type boolean' },
        { field: 'fields.labels[1]', message: 'must be of type string' },
        {
          field: 'fields.launch',
          message: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time, from 1900 to 9999',
        },
        { field: 'fields.homepage', message: 'must be a valid uri' },
      ]),
    );
    expect(wrong.body.error.field_errors).toHaveLength(5);
    const noFields = await entry({ title: 'Nothing' });
    expect(noFields.body.error.field_errors).toEqual([{ field: 'fields.price', message: 'is required' }]);
    const count = await h.db
      .selectFrom('cms_entries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('checks that reference and asset fields name records of this workspace', async () => {
    const target = (await entry({ title: 'Target', fields: { price: 5 } })).body.entry;
    const ok = await entry({ title: 'Refers', fields: { price: 1, related: [target.id] } });
    expect(ok.status).toBe(201);
    const foreignEntry = await (async () => {
      const s = (await post('/v1/cms/sites', { name: 'Theirs' }, other.apiKey)).body.site;
      const c = (await post('/v1/cms/collections', { site_id: s.id, key: 'c', name: 'C' }, other.apiKey)).body
        .collection;
      return (await post('/v1/cms/entries', { collection_id: c.id, title: 'Theirs' }, other.apiKey)).body
        .entry;
    })();
    const bad = await entry({
      title: 'Bad refs',
      fields: { price: 1, related: [target.id, foreignEntry.id], photo: 'ast_missing' },
    });
    expect(bad.body.error.field_errors).toEqual([
      { field: 'fields.related[1]', message: 'names no CMS entry of this workspace' },
      { field: 'fields.photo', message: 'names no asset of this workspace' },
    ]);
  });
});

describe('slugs', () => {
  it('makes derived slugs unique and refuses a taken explicit slug', async () => {
    const a = (await entry({ title: 'Same Title', fields: { price: 1 } })).body.entry;
    const b = (await entry({ title: 'Same title', fields: { price: 1 } })).body.entry;
    const c = (await entry({ title: 'same  TITLE', fields: { price: 1 } })).body.entry;
    expect([a.slug, b.slug, c.slug]).toEqual(['same-title', 'same-title-2', 'same-title-3']);
    const taken = await entry({ title: 'Other', slug: 'same-title', fields: { price: 1 } });
    expect(taken.status).toBe(400);
    expect(taken.body.error.field_errors[0].field).toBe('slug');
    const badSlug = await entry({ title: 'Other', slug: 'Not A Slug', fields: { price: 1 } });
    expect(badSlug.body.error.field_errors[0].field).toBe('slug');
    const rename = await patch(`/v1/cms/entries/${b.id}`, { slug: 'same-title-3' });
    expect(rename.body.error.field_errors[0].field).toBe('slug');
    const keep = await patch(`/v1/cms/entries/${b.id}`, { slug: 'same-title-2', title: 'Renamed' });
    expect(keep.body.entry).toMatchObject({ slug: 'same-title-2', title: 'Renamed' });
    const racers = await Promise.all(
      [1, 2, 3].map((n) => entry({ title: `Racer ${n}`, slug: 'photo-finish', fields: { price: n } })),
    );
    expect(racers.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of racers.filter((x) => x.status === 400))
      expect(r.body.error.field_errors[0].field).toBe('slug');
    // Slugs are unique per collection only.
    const blog = (await post('/v1/cms/collections', { site_id: site.id, key: 'blog', name: 'Blog' })).body
      .collection;
    const elsewhere = await post('/v1/cms/entries', { collection_id: blog.id, title: 'Same Title' });
    expect(elsewhere.body.entry.slug).toBe('same-title');
  });
});

describe('update_entry', () => {
  it('merges fields, validates the result, publishes and emits entry.status_changed', async () => {
    const e = (await entry({ title: 'Draft me', fields: { price: 10, summary: 'old', labels: ['a'] } })).body
      .entry;
    const merged = await patch(`/v1/cms/entries/${e.id}`, { fields: { summary: 'new', labels: null } });
    expect(merged.body.entry.fields).toEqual({ price: 10, summary: 'new' });
    const merEvents = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', merged.body.request_id)
      .execute();
    expect(merEvents.map((x) => x.name)).toEqual(['entry.updated']);
    const dropRequired = await patch(`/v1/cms/entries/${e.id}`, { fields: { price: null } });
    expect(dropRequired.body.error.field_errors).toEqual([{ field: 'fields.price', message: 'is required' }]);
    const wrongType = await patch(`/v1/cms/entries/${e.id}`, {
      fields: { price: 'free' },
      status: 'published',
    });
    expect(wrongType.body.error.field_errors).toEqual([
      { field: 'fields.price', message: 'must be of type number' },
    ]);
    const unchanged = await h.db
      .selectFrom('cms_entries')
      .select(['status', 'fields'])
      .where('id', '=', e.id)
      .executeTakeFirstOrThrow();
    expect(unchanged.status).toBe('draft');

    const review = await patch(`/v1/cms/entries/${e.id}`, { status: 'review' });
    expect(review.body.entry).toMatchObject({ status: 'review', published_at: null });
    const published = await patch(`/v1/cms/entries/${e.id}`, { status: 'published' });
    expect(published.body.entry).toMatchObject({
      status: 'published',
      published_at: h.clock.now().toISOString(),
    });
    const events = await h.db
      .selectFrom('outbox_events')
      .select(['name', 'payload'])
      .where('request_id', '=', published.body.request_id)
      .execute();
    expect(events.map((x) => x.name)).toEqual(['entry.status_changed']);
    expect(JSON.parse(events[0]!.payload)).toMatchObject({
      previous_status: 'review',
      entry: { status: 'published' },
    });
    const history = await get(`/v1/history?target_type=cms_entry&target_id=${e.id}`);
    expect(history.body.entries.length).toBe(4);
    const empty = await patch(`/v1/cms/entries/${e.id}`, {});
    expect(empty.status).toBe(400);
    const bad = await patch(`/v1/cms/entries/${e.id}`, { status: 'live' });
    expect(bad.body.error.field_errors[0].field).toBe('status');
  });

  it('keeps the deprecated update_entry_status callable over MCP while REST serves update_entry', async () => {
    const e = (await entry({ title: 'Old tool', fields: { price: 3 } })).body.entry;
    const res = await h.callTool(ws.mcpToken, 'update_entry_status', { entry_id: e.id, status: 'published' });
    expect(res.result.isError).toBeUndefined();
    expect(res.body.entry).toMatchObject({ status: 'published' });
    expect(res.body.entry.published_at).not.toBeNull();
    const extra = await h.callTool(ws.mcpToken, 'update_entry_status', {
      entry_id: e.id,
      status: 'draft',
      title: 'x',
    });
    expect(extra.body.error.code).toBe('validation_failed');
    const rest = await patch(`/v1/cms/entries/${e.id}`, { status: 'archived' });
    const audit = await h.db
      .selectFrom('audit_events')
      .select('tool')
      .where('request_id', '=', rest.body.request_id)
      .executeTakeFirstOrThrow();
    expect(audit.tool).toBe('update_entry');
    const tools = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const deprecated = tools.body.result.tools.find(
      (t: { name: string }) => t.name === 'update_entry_status',
    );
    expect(deprecated._meta).toMatchObject({ deprecated: true, replaced_by: 'update_entry' });
  });
});

describe('search_entries', () => {
  it('filters by site, collection, status and query over title and text fields', async () => {
    const s = (await post('/v1/cms/sites', { name: 'Search site' })).body.site;
    const col = (
      await post('/v1/cms/collections', {
        site_id: s.id,
        key: 'docs',
        name: 'Docs',
        fields: [
          { key: 'body', type: 'rich_text' },
          { key: 'n', type: 'number' },
        ],
      })
    ).body.collection;
    const mk = async (title: string, fields: Record<string, unknown>, status = 'draft') =>
      (await post('/v1/cms/entries', { collection_id: col.id, title, fields, status })).body.entry;
    const a = await mk('Getting started', { body: '<p>Install the WIDGET first</p>' }, 'published');
    const b = await mk('Widget reference', { n: 4 });
    await mk('Unrelated', { n: 42 });
    const ids = async (query: string) =>
      (await get(`/v1/cms/entries?site_id=${s.id}&${query}`)).body.entries.map((e: { id: string }) => e.id);
    expect(await ids('query=widget')).toEqual([b.id, a.id]);
    expect(await ids('query=42')).toEqual([]);
    expect(await ids('status=published')).toEqual([a.id]);
    expect(await ids(`collection_id=${col.id}&limit=1`)).toHaveLength(1);
    const mcp = await h.callTool(ws.mcpToken, 'search_entries', { collection_id: col.id, query: 'install' });
    expect(mcp.body.entries.map((e: { id: string }) => e.id)).toEqual([a.id]);
    const summary = await get('/v1/workspace');
    expect(summary.body.workspace.summary.cms.published_entries).toBeGreaterThanOrEqual(2);
  });
});

describe('idempotency and isolation', () => {
  it('replays and conflicts for sites, collections and entries', async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
      ['/v1/cms/sites', { name: 'Idem site' }, { name: 'Other site' }, 'site'],
      [
        '/v1/cms/collections',
        { site_id: site.id, key: 'idem', name: 'Idem' },
        { site_id: site.id, key: 'idem2', name: 'Idem' },
        'collection',
      ],
      [
        '/v1/cms/entries',
        { collection_id: products.id, title: 'Idem', fields: { price: 1 } },
        { collection_id: products.id, title: 'Idem', fields: { price: 2 } },
        'entry',
      ],
    ];
    for (const [url, body, changed, key] of cases) {
      const first = await post(url, { ...body, idempotency_key: `idem-${key}` });
      expect(first.status, first.text).toBe(201);
      const again = await post(url, { ...body, idempotency_key: `idem-${key}` });
      expect(again.status).toBe(200);
      expect(again.body[key]).toEqual(first.body[key]);
      const conflict = await post(url, { ...changed, idempotency_key: `idem-${key}` });
      expect(conflict.status).toBe(409);
    }
  });

  it("answers 404 for another workspace's site, collection and entry IDs", async () => {
    const e = (await entry({ title: 'Mine', fields: { price: 1 } })).body.entry;
    const responses = [
      await get(`/v1/cms/sites/${site.id}`, other.apiKey),
      await get(`/v1/cms/collections/${products.id}`, other.apiKey),
      await get(`/v1/cms/entries/${e.id}`, other.apiKey),
      await patch(`/v1/cms/entries/${e.id}`, { title: 'Stolen' }, other.apiKey),
      await post('/v1/cms/collections', { site_id: site.id, key: 'x', name: 'X' }, other.apiKey),
      await post(
        '/v1/cms/entries',
        { collection_id: products.id, title: 'X', fields: { price: 1 } },
        other.apiKey,
      ),
      await post('/v1/marketing/posts', { title: 'X', channel: 'web', cms_entry_id: e.id }, other.apiKey),
    ];
    for (const res of responses) expect(res.status, res.text).toBe(404);
    const mcp = await h.callTool(other.mcpToken, 'update_entry_status', {
      entry_id: e.id,
      status: 'archived',
    });
    expect(mcp.body.error.code).toBe('resource_not_found');
    const row = await h.db
      .selectFrom('cms_entries')
      .select(['title', 'status'])
      .where('id', '=', e.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ title: 'Mine', status: 'draft' });
  });
});
