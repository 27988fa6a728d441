// Products, releases (semantic versions) and roadmap items through the real app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type MutableClock, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let clock: MutableClock;

beforeAll(async () => {
  h = await Harness.start();
  clock = h.clock;
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const fieldsOf = (res: { body: any }) => res.body.error.field_errors.map((e: any) => e.field);
const eventsOf = async (requestId: string) =>
  (await h.db.selectFrom('outbox_events').select('name').where('request_id', '=', requestId).execute()).map(
    (e) => e.name,
  );

async function product(key: string) {
  const res = await post('/v1/products', { name: `Product ${key}`, key });
  expect(res.status, res.text).toBe(201);
  return res.body.product;
}

describe('products', () => {
  it('creates, validates the key, refuses duplicates, updates and lists', async () => {
    const created = await post('/v1/products', {
      name: 'Mobile app',
      key: 'mobile-app',
      description: 'iOS and Android',
    });
    expect(created.status).toBe(201);
    expect(created.body.product).toMatchObject({ key: 'mobile-app', status: 'active' });
    expect(await eventsOf(created.body.request_id)).toEqual(['product.created']);
    for (const key of ['Mobile', 'a', 'has space', '-lead', 'x'.repeat(41)]) {
      expect(fieldsOf(await post('/v1/products', { name: 'x', key })), key).toEqual(['key']);
    }
    expect(fieldsOf(await post('/v1/products', { name: 'Again', key: 'mobile-app' }))).toEqual(['key']);
    const id = created.body.product.id;
    const sunset = await patch(`/v1/products/${id}`, { status: 'sunset', description: null });
    expect(sunset.body.product).toMatchObject({ status: 'sunset', description: null });
    expect(await eventsOf(sunset.body.request_id)).toEqual(['product.status_changed']);
    expect((await patch(`/v1/products/${id}`, { status: 'retired' })).status).toBe(400);
    expect((await get('/v1/products?status=sunset')).body.products.map((p: any) => p.key)).toEqual([
      'mobile-app',
    ]);
    expect((await get('/v1/products?query=MOBILE')).body.products).toHaveLength(1);
    expect((await get(`/v1/products/${id}`)).body.product.status).toBe('sunset');
  });
});

describe('releases', () => {
  it('validates semantic versions and keeps them unique per product', async () => {
    const p = await product('versions');
    for (const version of ['v1.0.0', '1.0', '1.0.0.0', '01.0.0', 'latest', '1.0.0-', ' 1.0.0']) {
      const res = await post('/v1/products/releases', { product_id: p.id, version });
      expect(res.status, version).toBe(400);
      expect(fieldsOf(res)).toEqual(['version']);
    }
    expect((await post('/v1/products/releases', { product_id: p.id, version: '1.0.0' })).status).toBe(201);
    const dup = await post('/v1/products/releases', { product_id: p.id, version: '1.0.0', name: 'again' });
    expect(fieldsOf(dup)).toEqual(['version']);
    const other = await product('other-versions');
    expect((await post('/v1/products/releases', { product_id: other.id, version: '1.0.0' })).status).toBe(
      201,
    );
    expect((await post('/v1/products/releases', { product_id: 'prd_nope', version: '1.0.0' })).status).toBe(
      404,
    );
  });

  it('lists in semantic-version order, highest first, across pages', async () => {
    const p = await product('ordering');
    const versions = [
      '1.10.0',
      '1.2.0',
      '2.0.0-rc.1',
      '1.9.3',
      '2.0.0',
      '2.0.0-beta.11',
      '2.0.0-beta.2',
      '0.9.0',
      '2.0.0-alpha',
    ];
    for (const version of versions) await post('/v1/products/releases', { product_id: p.id, version });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await get(
        `/v1/products/releases?product_id=${p.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.product_releases.map((r: any) => r.version));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([
      '2.0.0',
      '2.0.0-rc.1',
      '2.0.0-beta.11',
      '2.0.0-beta.2',
      '2.0.0-alpha',
      '1.10.0',
      '1.9.3',
      '1.2.0',
      '0.9.0',
    ]);
    const mcp = await h.callTool(ws.mcpToken, 'list_product_releases', { product_id: p.id, limit: 3 });
    expect(mcp.body.product_releases.map((r: any) => r.version)).toEqual([
      '2.0.0',
      '2.0.0-rc.1',
      '2.0.0-beta.11',
    ]);
    const foreignCursor = await get(
      `/v1/products/releases?product_id=${p.id}&status=released&cursor=${mcp.body.next_cursor}`,
    );
    expect(fieldsOf(foreignCursor)).toEqual(['cursor']);
  });

  it('stamps released_at on release, clears it when leaving released, and re-validates versions', async () => {
    const p = await product('lifecycle');
    const created = await post('/v1/products/releases', {
      product_id: p.id,
      version: '3.1.0',
      name: 'Spring',
      target_date: '2026-12-01',
      notes: '- faster',
    });
    expect(created.body.product_release).toMatchObject({
      status: 'planned',
      released_at: null,
      name: 'Spring',
    });
    expect(await eventsOf(created.body.request_id)).toEqual(['release.created']);
    const id = created.body.product_release.id;
    clock.advance(60_000);
    const released = await patch(`/v1/products/releases/${id}`, { status: 'released' });
    expect(released.body.product_release).toMatchObject({
      status: 'released',
      released_at: clock.now().toISOString(),
    });
    expect(await eventsOf(released.body.request_id)).toEqual(['release.released']);
    const row = await h.db
      .selectFrom('product_releases')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.released_at).toBe(clock.now().toISOString());
    const again = await patch(`/v1/products/releases/${id}`, { status: 'released' });
    expect(again.body.product_release.released_at).toBe(row.released_at);
    expect(await eventsOf(again.body.request_id)).toEqual([]);
    const reopened = await patch(`/v1/products/releases/${id}`, { status: 'in_progress', version: '3.1.1' });
    expect(reopened.body.product_release).toMatchObject({
      status: 'in_progress',
      released_at: null,
      version: '3.1.1',
    });
    expect(await eventsOf(reopened.body.request_id)).toEqual(['release.updated']);
    expect(fieldsOf(await patch(`/v1/products/releases/${id}`, { version: '3.1' }))).toEqual(['version']);
    await post('/v1/products/releases', { product_id: p.id, version: '4.0.0' });
    expect(fieldsOf(await patch(`/v1/products/releases/${id}`, { version: '4.0.0' }))).toEqual(['version']);
    const asReleased = await post('/v1/products/releases', {
      product_id: p.id,
      version: '0.1.0',
      status: 'released',
    });
    expect(asReleased.body.product_release.released_at).toBe(clock.now().toISOString());
    expect((await eventsOf(asReleased.body.request_id)).sort()).toEqual([
      'release.created',
      'release.released',
    ]);
    expect(
      (await get(`/v1/products/releases?product_id=${p.id}&status=released`)).body.product_releases.map(
        (r: any) => r.version,
      ),
    ).toEqual(['0.1.0']);
  });
});

describe('roadmap items', () => {
  it('links releases of the same product and project work, and filters', async () => {
    const p = await product('roadmap');
    const q = await product('roadmap-other');
    const release = (await post('/v1/products/releases', { product_id: p.id, version: '1.0.0' })).body
      .product_release;
    const foreignRelease = (await post('/v1/products/releases', { product_id: q.id, version: '1.0.0' })).body
      .product_release;
    const project = (await post('/v1/projects', { name: 'Roadmap work', key: 'RMW' })).body.project;
    const otherProject = (await post('/v1/projects', { name: 'Other work', key: 'RMO' })).body.project;
    const task = (await post('/v1/projects/tasks', { project_id: project.id, title: 'Build it' })).body
      .project_task;

    const item = await post('/v1/products/roadmap-items', {
      product_id: p.id,
      title: 'Offline mode',
      priority: 'high',
      release_id: release.id,
      project_task_id: task.id,
    });
    expect(item.status, item.text).toBe(201);
    expect(item.body.product_roadmap_item).toMatchObject({
      status: 'idea',
      priority: 'high',
      release_id: release.id,
      project_id: project.id,
      project_task_id: task.id,
    });
    expect(await eventsOf(item.body.request_id)).toEqual(['roadmap_item.created']);

    expect(
      fieldsOf(
        await post('/v1/products/roadmap-items', {
          product_id: p.id,
          title: 'x',
          release_id: foreignRelease.id,
        }),
      ),
    ).toEqual(['release_id']);
    const mismatch = await post('/v1/products/roadmap-items', {
      product_id: p.id,
      title: 'x',
      project_id: otherProject.id,
      project_task_id: task.id,
    });
    expect(fieldsOf(mismatch)).toEqual(['project_task_id']);
    expect(
      (await post('/v1/products/roadmap-items', { product_id: p.id, title: 'x', release_id: 'rel_nope' }))
        .status,
    ).toBe(404);
    expect(
      (
        await post('/v1/products/roadmap-items', {
          product_id: p.id,
          title: 'x',
          project_task_id: 'ptk_nope',
        })
      ).status,
    ).toBe(404);

    const id = item.body.product_roadmap_item.id;
    const moved = await patch(`/v1/products/roadmap-items/${id}`, {
      status: 'in_progress',
      release_id: null,
    });
    expect(moved.body.product_roadmap_item).toMatchObject({
      status: 'in_progress',
      release_id: null,
      project_id: project.id,
    });
    expect(await eventsOf(moved.body.request_id)).toEqual(['roadmap_item.status_changed']);
    expect(
      fieldsOf(await patch(`/v1/products/roadmap-items/${id}`, { project_id: otherProject.id })),
    ).toEqual(['project_task_id']);
    const relinked = await patch(`/v1/products/roadmap-items/${id}`, {
      project_id: otherProject.id,
      project_task_id: null,
    });
    expect(relinked.body.product_roadmap_item).toMatchObject({
      project_id: otherProject.id,
      project_task_id: null,
    });
    expect(
      fieldsOf(await patch(`/v1/products/roadmap-items/${id}`, { release_id: foreignRelease.id })),
    ).toEqual(['release_id']);

    await post('/v1/products/roadmap-items', {
      product_id: p.id,
      title: 'Dark theme',
      release_id: release.id,
    });
    const inRelease = await get(`/v1/products/roadmap-items?release_id=${release.id}`);
    expect(inRelease.body.product_roadmap_items.map((i: any) => i.title)).toEqual(['Dark theme']);
    const byStatus = await h.callTool(ws.mcpToken, 'list_product_roadmap_items', {
      product_id: p.id,
      status: 'in_progress',
    });
    expect(byStatus.body.product_roadmap_items.map((i: any) => i.title)).toEqual(['Offline mode']);
    expect((await get('/v1/products/roadmap-items?query=offline')).body.product_roadmap_items).toHaveLength(
      1,
    );
  });
});
