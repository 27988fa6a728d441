// Idempotent creates (replay and conflict) and tenant isolation (404 on every ID) for the products module.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let owner: TestWorkspace;
let stranger: TestWorkspace;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await Harness.start();
  owner = await h.workspace('Owner');
  stranger = await h.workspace('Stranger');
  const post = async (url: string, body: unknown) =>
    (await h.request('POST', url, { token: owner.apiKey, body })).body;
  ids.product = (await post('/v1/products', { name: 'Owner product', key: 'owner' })).product.id;
  ids.release = (
    await post('/v1/products/releases', { product_id: ids.product, version: '1.0.0' })
  ).product_release.id;
  ids.item = (
    await post('/v1/products/roadmap-items', { product_id: ids.product, title: 'Owner item' })
  ).product_roadmap_item.id;
  ids.project = (await post('/v1/projects', { name: 'Owner project', key: 'OWN' })).project.id;
  ids.task = (
    await post('/v1/projects/tasks', { project_id: ids.project, title: 'Owner task' })
  ).project_task.id;
});
afterAll(() => h.close());

describe('idempotent creates', () => {
  it('replay the first record and answer 409 for another input, on every create', async () => {
    const creates: [string, string, string, Record<string, unknown>, Record<string, unknown>][] = [
      ['/v1/products', 'product', 'products', { name: 'Idem', key: 'idem' }, { name: 'Other' }],
      [
        '/v1/products/releases',
        'product_release',
        'product_releases',
        { product_id: ids.product, version: '2.0.0' },
        { version: '2.0.1' },
      ],
      [
        '/v1/products/roadmap-items',
        'product_roadmap_item',
        'product_roadmap_items',
        { product_id: ids.product, title: 'Idem' },
        { title: 'Other' },
      ],
    ];
    for (const [url, key, table, body, change] of creates) {
      const count = async () =>
        Number(
          (
            await h.db
              .selectFrom(table as 'products')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('workspace_id', '=', owner.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const first = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, idempotency_key: `idem-${key}` },
      });
      expect(first.status, `${url} ${first.text}`).toBe(201);
      const before = await count();
      const replay = await h.callTool(owner.mcpToken, `create_${key}`, {
        ...body,
        idempotency_key: `idem-${key}`,
      });
      expect(replay.body[key], url).toEqual(first.body[key]);
      const again = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, idempotency_key: `idem-${key}` },
      });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const conflict = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, ...change, idempotency_key: `idem-${key}` },
      });
      expect(conflict.status, url).toBe(409);
      expect(conflict.body.error).toMatchObject({
        code: 'idempotency_conflict',
        idempotency_key: `idem-${key}`,
      });
      expect(await count(), url).toBe(before);
    }
  });
});

describe('a second workspace', () => {
  it('gets 404 reading every record of the first', async () => {
    for (const path of [
      `/v1/products/${ids.product}`,
      `/v1/products/releases/${ids.release}`,
      `/v1/products/roadmap-items/${ids.item}`,
    ]) {
      expect((await h.request('GET', path, { token: owner.apiKey })).status, path).toBe(200);
      const foreign = await h.request('GET', path, { token: stranger.apiKey });
      expect(foreign.status, path).toBe(404);
      expect(foreign.body.error.code).toBe('resource_not_found');
    }
  });

  it('gets 404 updating or referencing them, and changes nothing', async () => {
    const mine = (
      await h.request('POST', '/v1/products', { token: stranger.apiKey, body: { name: 'Mine', key: 'mine' } })
    ).body.product;
    const writes: [string, string, Record<string, unknown>][] = [
      ['PATCH', `/v1/products/${ids.product}`, { name: 'Hijack' }],
      ['PATCH', `/v1/products/releases/${ids.release}`, { status: 'released' }],
      ['PATCH', `/v1/products/roadmap-items/${ids.item}`, { title: 'Hijack' }],
      ['POST', '/v1/products/releases', { product_id: ids.product, version: '9.9.9' }],
      ['POST', '/v1/products/roadmap-items', { product_id: ids.product, title: 'x' }],
      ['POST', '/v1/products/roadmap-items', { product_id: mine.id, title: 'x', release_id: ids.release }],
      ['POST', '/v1/products/roadmap-items', { product_id: mine.id, title: 'x', project_id: ids.project }],
      ['POST', '/v1/products/roadmap-items', { product_id: mine.id, title: 'x', project_task_id: ids.task }],
    ];
    for (const [method, url, body] of writes) {
      const res = await h.request(method, url, { token: stranger.apiKey, body });
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    const item = (
      await h.request('POST', '/v1/products/roadmap-items', {
        token: stranger.apiKey,
        body: { product_id: mine.id, title: 'mine' },
      })
    ).body.product_roadmap_item;
    expect(
      (
        await h.request('PATCH', `/v1/products/roadmap-items/${item.id}`, {
          token: stranger.apiKey,
          body: { project_task_id: ids.task },
        })
      ).status,
    ).toBe(404);
    const mcp = await h.callTool(stranger.mcpToken, 'update_product_release', {
      release_id: ids.release,
      notes: 'x',
    });
    expect(mcp.body.error.code).toBe('resource_not_found');
    const release = await h.db
      .selectFrom('product_releases')
      .selectAll()
      .where('id', '=', ids.release)
      .executeTakeFirstOrThrow();
    expect(release).toMatchObject({ status: 'planned', released_at: null, notes: null });
  });

  it('sees none of them in lists or in its summary', async () => {
    for (const url of [
      '/v1/products',
      '/v1/products/releases',
      '/v1/products/roadmap-items',
      `/v1/products/releases?product_id=${ids.product}`,
    ]) {
      const res = await h.request('GET', url, { token: stranger.apiKey });
      const key = Object.keys(res.body).find((k) => k !== 'request_id')!;
      expect(
        res.body[key].filter((r: any) => Object.values(ids).includes(r.id)),
        url,
      ).toEqual([]);
    }
    const summary = await h.request('GET', '/v1/workspace', { token: stranger.apiKey });
    expect(summary.body.workspace.summary.products).toEqual({
      active_products: 1,
      upcoming_releases: 0,
      roadmap_items_in_flight: 0,
    });
  });
});
