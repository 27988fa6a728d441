import type { ModuleDefinition } from '../../core/module.ts';
import {
  CmsCollectionSchema,
  CmsEntrySchema,
  CmsSiteSchema,
  EntryStatusChangeSchema,
  MarketingCampaignSchema,
  MarketingPostSchema,
} from './cms-schemas.ts';
import { cmsCounts } from './cms-summary-store.ts';
import type { CmsTables } from './cms-tables.ts';
import { collectionRecord, createCollection, listCmsCollections } from './collections.ts';
import {
  createEntry,
  entryRecord,
  searchEntriesOperation,
  updateEntry,
  updateEntryStatus,
} from './entries.ts';
import {
  campaignRecord,
  createMarketingCampaign,
  createMarketingPost,
  listMarketingCampaigns,
  listMarketingPosts,
  postRecord,
} from './marketing.ts';
import { createCmsSite, listCmsSites, siteRecord } from './sites.ts';

const identity = { name: 'cms', scopes: ['cms:read', 'cms:write'] } as const;

export const cmsModule: ModuleDefinition<typeof identity, CmsTables> = {
  ...identity,
  operations: [
    createCmsSite,
    listCmsSites,
    createCollection,
    listCmsCollections,
    createEntry,
    searchEntriesOperation,
    updateEntry,
    updateEntryStatus,
    createMarketingCampaign,
    listMarketingCampaigns,
    createMarketingPost,
    listMarketingPosts,
  ],
  recordTypes: [siteRecord, collectionRecord, entryRecord, campaignRecord, postRecord],
  events: [
    {
      name: 'cms_site.created',
      description: 'A CMS site was created; data is the site.',
      schema: CmsSiteSchema,
    },
    {
      name: 'cms_collection.created',
      description: 'A CMS collection was created; data is the collection with its field definitions.',
      schema: CmsCollectionSchema,
    },
    {
      name: 'entry.created',
      description: 'A CMS entry was created; data is the entry.',
      schema: CmsEntrySchema,
    },
    {
      name: 'entry.updated',
      description: "A CMS entry's title, slug or fields changed; data is the entry.",
      schema: CmsEntrySchema,
    },
    {
      name: 'entry.status_changed',
      description: 'A CMS entry moved to another status (e.g. published); data is {entry, previous_status}.',
      schema: EntryStatusChangeSchema,
    },
    {
      name: 'marketing_campaign.created',
      description: 'A marketing campaign was created; data is the campaign.',
      schema: MarketingCampaignSchema,
    },
    {
      name: 'marketing_post.created',
      description: 'A marketing post was created; data is the post.',
      schema: MarketingPostSchema,
    },
  ],
  summary: [
    {
      module: 'cms',
      scope: 'cms:read',
      key: 'cms',
      compute: (db, workspaceId) => cmsCounts(db, workspaceId),
    },
  ],
};
