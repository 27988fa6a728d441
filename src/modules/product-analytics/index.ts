import type { ModuleDefinition } from '../../core/module.ts';
import type { ProductAnalyticsTables } from './analytics-tables.ts';
import * as productAnalytics from './migrations/0011-product-analytics.ts';
import { objectAnalyticsOperations } from './object-analytics.ts';
import { siteOperations, siteRecordTypes } from './sites.ts';

// Product analytics and BI: application events (ingest, Object Analytics) and Analytics Sites. Ingest and
// sites need analytics:write, Object Analytics analytics:read (docs/contract.md); bi:* are BI's scopes.
const identity = { name: 'product_analytics_bi', scopes: ['bi:read', 'bi:write'] } as const;

export const productAnalyticsModule: ModuleDefinition<typeof identity, ProductAnalyticsTables> = {
  ...identity,
  migrations: { '0011-product-analytics': productAnalytics },
  operations: [...siteOperations, ...objectAnalyticsOperations],
  recordTypes: [...siteRecordTypes],
  events: [],
};
