import { combineParts, type ModuleDefinition, type ModuleParts } from '../../core/module.ts';
import { AnalyticsSiteSchema } from './analytics-schemas.ts';
import type { ProductAnalyticsTables } from './analytics-tables.ts';
import { appEventRetentionJob, appEventRetentionSweep } from './app-event-retention.ts';
import { getAppEventSettings, updateAppEventSettings } from './app-event-settings.ts';
import type { BiTables } from './bi/bi-tables.ts';
import { biParts } from './bi/index.ts';
import { ingestAppEvents } from './ingest.ts';
import * as productAnalytics from './migrations/0011-product-analytics.ts';
import * as appEventDaily from './migrations/0015-app-event-daily.ts';
import { objectAnalyticsOperations } from './object-analytics.ts';
import { objectWindowsJob, objectWindowsSweep } from './object-window-job.ts';
import { getSiteUsage } from './site-usage.ts';
import { siteOperations, siteRecordTypes } from './sites.ts';

// Product analytics and BI: application events (ingest, Object Analytics) and Analytics Sites. Ingest and
// sites need analytics:write, Object Analytics analytics:read (docs/contract.md); bi:* are BI's scopes.
const identity = { name: 'product_analytics_bi', scopes: ['bi:read', 'bi:write'] } as const;

const appEventParts: ModuleParts<ProductAnalyticsTables> = {
  migrations: { '0011-product-analytics': productAnalytics, '0015-app-event-daily': appEventDaily },
  operations: [
    ingestAppEvents,
    getAppEventSettings,
    updateAppEventSettings,
    ...siteOperations,
    getSiteUsage,
    ...objectAnalyticsOperations,
  ],
  recordTypes: [...siteRecordTypes],
  jobs: [appEventRetentionJob, objectWindowsJob],
  periodicTasks: [appEventRetentionSweep, objectWindowsSweep],
  events: [
    {
      name: 'analytics_site.created',
      description: 'An Analytics Site was created; data is the site (with its key).',
      schema: AnalyticsSiteSchema,
    },
    {
      name: 'analytics_site.updated',
      description: 'An Analytics Site changed (settings or status); data is the site.',
      schema: AnalyticsSiteSchema,
    },
    {
      name: 'analytics_site.archived',
      description: 'An Analytics Site was archived: its keys are refused; data is the site.',
      schema: AnalyticsSiteSchema,
    },
    {
      name: 'analytics_site.key_rotated',
      description: "An Analytics Site's key was rotated; data is the site with site_key and previous_key.",
      schema: AnalyticsSiteSchema,
    },
  ],
};

export const productAnalyticsModule: ModuleDefinition<typeof identity, ProductAnalyticsTables & BiTables> = {
  ...identity,
  ...combineParts<ProductAnalyticsTables & BiTables>(appEventParts, biParts),
};
