import { Type } from '@sinclair/typebox';
import type { ModuleDefinition } from '../../core/module.ts';
import { cmsCounts } from './cms-store.ts';
import { collectionRecord, createCollection, listCmsCollections } from './collections.ts';
import { createEntry, entryRecord, searchEntriesOperation, updateEntry, updateEntryStatus } from './entries.ts';
import {
  campaignRecord,
  createMarketingCampaign,
  createMarketingPost,
  listMarketingCampaigns,
  listMarketingPosts,
  postRecord,
} from './marketing.ts';
import { createCmsSite, listCmsSites, siteRecord } from './sites.ts';

const nullableString = Type.Union([Type.String(), Type.Null()]);
const entrySchema = Type.Object({
  id: Type.String(),
  site_id: Type.String(),
  collection_id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  fields: Type.Record(Type.String(), Type.Unknown()),
  status: Type.String({ description: 'draft, review, published or archived' }),
  published_at: nullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const cmsModule: ModuleDefinition = {
  name: 'cms',
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
    { name: 'cms_site.created', description: 'A CMS site was created; data is the site.' },
    { name: 'cms_collection.created', description: 'A CMS collection was created; data is the collection with its field definitions.' },
    { name: 'entry.created', description: 'A CMS entry was created; data is the entry.', schema: entrySchema },
    {
      name: 'entry.updated',
      description: 'A CMS entry\'s title, slug or fields changed; data is the entry.',
      schema: entrySchema,
    },
    {
      name: 'entry.status_changed',
      description: 'A CMS entry moved to another status (e.g. published); data is {entry, previous_status}.',
      schema: Type.Object({ entry: entrySchema, previous_status: Type.String() }),
    },
    { name: 'marketing_campaign.created', description: 'A marketing campaign was created; data is the campaign.' },
    { name: 'marketing_post.created', description: 'A marketing post was created; data is the post.' },
  ],
  summary: [{ module: 'cms', scope: 'cms:read', key: 'cms', compute: (db, workspaceId) => cmsCounts(db, workspaceId) }],
};
