// Marketing campaigns and posts: defaults, date rules, filters, idempotency and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Marketing');
  other = await h.workspace('Elsewhere');
});
afterAll(() => h.close());

function post(url: string, body: unknown, token = ws.apiKey) {
  return h.request('POST', url, { token, body });
}
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const ids = (list: { id: string }[]) => list.map((x) => x.id);

describe('campaigns', () => {
  it('creates with defaults and normalized times, and rejects an end before the start', async () => {
    const res = await post('/v1/marketing/campaigns', {
      name: 'Launch',
      budget_cents: 500_000,
      starts_at: '2026-12-01T10:00:00+01:00',
    });
    expect(res.status).toBe(201);
    expect(res.body.campaign).toMatchObject({
      name: 'Launch',
      channel: 'other',
      status: 'planned',
      budget_cents: 500_000,
      currency: 'USD',
      starts_at: '2026-12-01T09:00:00.000Z',
      ends_at: null,
    });
    const backwards = await post('/v1/marketing/campaigns', {
      name: 'Oops',
      starts_at: '2026-12-02T00:00:00Z',
      ends_at: '2026-12-01T00:00:00Z',
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.field_errors).toEqual([
      { field: 'ends_at', message: 'must not be before starts_at' },
    ]);
    const invalid = await post('/v1/marketing/campaigns', {
      name: 'Bad',
      budget_cents: -1,
      currency: 'usd',
      channel: 'tv',
      status: 'done',
    });
    expect(invalid.body.error.field_errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'budget_cents',
      'channel',
      'currency',
      'status',
    ]);
    const sameDay = await post('/v1/marketing/campaigns', {
      name: 'One day',
      starts_at: '2026-12-01T00:00:00Z',
      ends_at: '2026-12-01T00:00:00Z',
    });
    expect(sameDay.status).toBe(201);
  });

  it('lists by status, channel and query', async () => {
    const email = (
      await post('/v1/marketing/campaigns', { name: 'Newsletter', channel: 'email', status: 'active' })
    ).body.campaign;
    const social = (
      await post('/v1/marketing/campaigns', { name: 'Social push', channel: 'social', status: 'active' })
    ).body.campaign;
    expect(ids((await get('/v1/marketing/campaigns?status=active')).body.campaigns)).toEqual([
      social.id,
      email.id,
    ]);
    expect(ids((await get('/v1/marketing/campaigns?status=active&channel=email')).body.campaigns)).toEqual([
      email.id,
    ]);
    expect(ids((await get('/v1/marketing/campaigns?query=newsl')).body.campaigns)).toEqual([email.id]);
    const mcp = await h.callTool(ws.mcpToken, 'list_marketing_campaigns', { channel: 'social' });
    expect(ids(mcp.body.campaigns)).toEqual([social.id]);
    const summary = await get('/v1/workspace');
    expect(summary.body.workspace.summary.cms.active_campaigns).toBe(2);
  });
});

describe('posts', () => {
  it('takes the campaign channel, needs scheduled_at to schedule and sets published_at on publish', async () => {
    const campaign = (await post('/v1/marketing/campaigns', { name: 'Posts', channel: 'social' })).body
      .campaign;
    const draft = await post('/v1/marketing/posts', { campaign_id: campaign.id, title: 'Teaser' });
    expect(draft.status).toBe(201);
    expect(draft.body.post).toMatchObject({
      campaign_id: campaign.id,
      channel: 'social',
      status: 'draft',
      published_at: null,
      scheduled_at: null,
    });
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', draft.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['marketing_post.created']);

    const noChannel = await post('/v1/marketing/posts', { title: 'Loose' });
    expect(noChannel.body.error.field_errors).toEqual([
      { field: 'channel', message: 'is required when the post has no campaign' },
    ]);
    const unscheduled = await post('/v1/marketing/posts', {
      title: 'Later',
      channel: 'email',
      status: 'scheduled',
    });
    expect(unscheduled.body.error.field_errors[0].field).toBe('scheduled_at');
    const earlyPublish = await post('/v1/marketing/posts', {
      title: 'x',
      channel: 'email',
      published_at: '2026-01-01T00:00:00Z',
    });
    expect(earlyPublish.body.error.field_errors[0].field).toBe('published_at');

    const scheduled = await post('/v1/marketing/posts', {
      title: 'Later',
      channel: 'email',
      status: 'scheduled',
      scheduled_at: '2026-12-24T08:00:00Z',
    });
    expect(scheduled.body.post).toMatchObject({
      status: 'scheduled',
      scheduled_at: '2026-12-24T08:00:00.000Z',
    });
    const published = await h.callTool(ws.mcpToken, 'create_marketing_post', {
      title: 'Now',
      channel: 'web',
      status: 'published',
    });
    expect(published.body.post.published_at).toBe(h.clock.now().toISOString());
  });

  it('points at a CMS entry and lists by status, channel, campaign and entry', async () => {
    const site = (await post('/v1/cms/sites', { name: 'Site' })).body.site;
    const col = (await post('/v1/cms/collections', { site_id: site.id, key: 'blog', name: 'Blog' })).body
      .collection;
    const e = (await post('/v1/cms/entries', { collection_id: col.id, title: 'Big news' })).body.entry;
    const campaign = (await post('/v1/marketing/campaigns', { name: 'Filters', channel: 'ads' })).body
      .campaign;
    const p1 = (
      await post('/v1/marketing/posts', { campaign_id: campaign.id, title: 'Ad one', cms_entry_id: e.id })
    ).body.post;
    const p2 = (
      await post('/v1/marketing/posts', {
        campaign_id: campaign.id,
        title: 'Ad two',
        channel: 'web',
        status: 'published',
      })
    ).body.post;
    expect(p1.cms_entry_id).toBe(e.id);
    expect(ids((await get(`/v1/marketing/posts?campaign_id=${campaign.id}`)).body.posts)).toEqual([
      p2.id,
      p1.id,
    ]);
    expect(
      ids((await get(`/v1/marketing/posts?campaign_id=${campaign.id}&status=published`)).body.posts),
    ).toEqual([p2.id]);
    expect(ids((await get(`/v1/marketing/posts?campaign_id=${campaign.id}&channel=ads`)).body.posts)).toEqual(
      [p1.id],
    );
    expect(ids((await get(`/v1/marketing/posts?cms_entry_id=${e.id}`)).body.posts)).toEqual([p1.id]);
    const missing = await post('/v1/marketing/posts', {
      title: 'x',
      channel: 'web',
      cms_entry_id: 'ent_missing',
    });
    expect(missing.status).toBe(404);
    const missingCampaign = await post('/v1/marketing/posts', { title: 'x', campaign_id: 'mcmp_missing' });
    expect(missingCampaign.status).toBe(404);
  });
});

describe('idempotency and isolation', () => {
  it('replays and conflicts for campaigns and posts', async () => {
    const c1 = await post('/v1/marketing/campaigns', { name: 'Idem', idempotency_key: 'camp-1' });
    const c2 = await post('/v1/marketing/campaigns', { name: 'Idem', idempotency_key: 'camp-1' });
    expect(c2.status).toBe(200);
    expect(c2.body.campaign).toEqual(c1.body.campaign);
    expect(
      (await post('/v1/marketing/campaigns', { name: 'Idem 2', idempotency_key: 'camp-1' })).status,
    ).toBe(409);
    const p1 = await post('/v1/marketing/posts', {
      title: 'Idem',
      channel: 'web',
      idempotency_key: 'post-1',
    });
    const p2 = await post('/v1/marketing/posts', {
      title: 'Idem',
      channel: 'web',
      idempotency_key: 'post-1',
    });
    expect(p2.status).toBe(200);
    expect(p2.body.post.id).toBe(p1.body.post.id);
    expect(
      (await post('/v1/marketing/posts', { title: 'Idem', channel: 'email', idempotency_key: 'post-1' }))
        .status,
    ).toBe(409);
  });

  it("answers 404 for another workspace's campaign and post IDs", async () => {
    const campaign = (await post('/v1/marketing/campaigns', { name: 'Mine' })).body.campaign;
    const p = (await post('/v1/marketing/posts', { title: 'Mine', campaign_id: campaign.id })).body.post;
    for (const res of [
      await get(`/v1/marketing/campaigns/${campaign.id}`, other.apiKey),
      await get(`/v1/marketing/posts/${p.id}`, other.apiKey),
      await post('/v1/marketing/posts', { title: 'Theirs', campaign_id: campaign.id }, other.apiKey),
    ]) {
      expect(res.status, res.text).toBe(404);
    }
    expect((await get(`/v1/marketing/posts?campaign_id=${campaign.id}`, other.apiKey)).body.posts).toEqual(
      [],
    );
    expect(
      await h.db.selectFrom('marketing_posts').selectAll().where('workspace_id', '=', other.id).execute(),
    ).toEqual([]);
  });
});
