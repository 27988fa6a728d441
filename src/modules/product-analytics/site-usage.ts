// How many events a site sent recently, read from the per-minute counters its limits keep (a day of them is
// kept: deleteOldSiteCounters). The console shows these beside the site's key.
import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { RecordId, Resource, Timestamp } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { siteId } from './site-keys.ts';
import { eventsSince, findSite } from './site-store.ts';

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

export const getSiteUsage = defineOperation({
  name: 'get_analytics_site_usage',
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  summary: 'Count the events an Analytics Site sent',
  description:
    'How many events a site sent in the last hour and the last 24 hours (whole minutes, from the counters ' +
    'its per-minute limit and daily quota use): every event its keys sent, as those limits count them, ' +
    'duplicates and rejected events included; a call refused by the limits counts nothing.',
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
