// How many events a site sent recently, read from the per-minute counters its limits keep (a day of them is
// kept: deleteOldSiteCounters). The console shows these beside the site's key.
import { Type } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { RecordId, Resource, Timestamp } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import type { DB } from '../../db/tables.ts';
import { siteId } from './site-keys.ts';
import { findSite } from './site-store.ts';

const SiteUsageSchema = Resource('AnalyticsSiteUsage', {
  site_id: RecordId('asite'),
  last_hour: Type.Integer({
    examples: [120],
    description: 'Events counted in this minute and the 59 before.',
  }),
  last_24_hours: Type.Integer({
    examples: [2400],
    description: 'Events counted in this minute and the 1,439 before.',
  }),
  counted_at: Timestamp('When the counts were read.'),
});

/** Events of the minute buckets from `minutes - 1` minutes before now's minute up to now's. */
async function eventsSince(db: Kysely<DB>, workspaceId: string, site: string, now: Date, minutes: number) {
  const first = new Date(now.getTime() - (minutes - 1) * 60_000).toISOString().slice(0, 16);
  const row = await db
    .selectFrom('analytics_site_counters')
    .select(sql<number | string | null>`sum(events)`.as('events'))
    .where('workspace_id', '=', workspaceId)
    .where('site_id', '=', site)
    // 'day:' buckets sort before 'minute:', so this bound keeps minute buckets only.
    .where('bucket', '>=', `minute:${first}`)
    .executeTakeFirst();
  return Number(row?.events ?? 0);
}

export const getSiteUsage = defineOperation({
  name: 'get_analytics_site_usage',
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  summary: 'Count the events an Analytics Site sent',
  description:
    'How many events a site sent in the last hour and the last 24 hours (whole minutes, from the counters ' +
    'its per-minute limit and daily quota use): events stored through its keys; rejected events, duplicates ' +
    'and batches refused by those limits are not counted.',
  input: Strict({ site_id: siteId }),
  rest: { method: 'GET', path: '/v1/insights/sites/{site_id}/usage' },
  responseKey: 'site_usage',
  response: Type.Object({ site_usage: SiteUsageSchema }, { additionalProperties: false }),
  handler: async (ctx, input) => {
    const site = await findSite(ctx.db, ctx.workspaceId, input.site_id, ctx.now);
    if (!site || site.archived_at) throw notFound('analytics site');
    const now = new Date(ctx.now);
    const [lastHour, lastDay] = await Promise.all([
      eventsSince(ctx.db, ctx.workspaceId, site.id, now, 60),
      eventsSince(ctx.db, ctx.workspaceId, site.id, now, 1440),
    ]);
    return {
      body: {
        site_usage: { site_id: site.id, last_hour: lastHour, last_24_hours: lastDay, counted_at: ctx.now },
      },
    };
  },
});
