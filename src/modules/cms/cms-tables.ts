export type EntryStatus = 'draft' | 'review' | 'published' | 'archived';
export type MarketingChannel = 'email' | 'social' | 'ads' | 'web' | 'event' | 'other';
export type CampaignStatus = 'planned' | 'active' | 'paused' | 'completed';
export type PostStatus = 'draft' | 'scheduled' | 'published';

export interface CmsSitesTable {
  workspace_id: string;
  id: string;
  name: string;
  domain: string | null;
  default_locale: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface CmsCollectionsTable {
  workspace_id: string;
  id: string;
  site_id: string;
  key: string;
  name: string;
  description: string | null;
  /** JSON array of field definitions. */
  fields: string;
  created_at: string;
  updated_at: string;
}

export interface CmsEntriesTable {
  workspace_id: string;
  id: string;
  site_id: string;
  collection_id: string;
  title: string;
  slug: string;
  /** JSON object of content fields. */
  fields: string;
  /** The values of text and rich_text fields, for search_entries' query. */
  search_text: string;
  status: EntryStatus;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface MarketingCampaignsTable {
  workspace_id: string;
  id: string;
  name: string;
  description: string | null;
  channel: MarketingChannel;
  status: CampaignStatus;
  budget_cents: number | null;
  currency: string;
  starts_at: string | null;
  ends_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface MarketingPostsTable {
  workspace_id: string;
  id: string;
  campaign_id: string | null;
  channel: MarketingChannel;
  title: string;
  body: string | null;
  status: PostStatus;
  scheduled_at: string | null;
  published_at: string | null;
  cms_entry_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface CmsTables {
  cms_sites: CmsSitesTable;
  cms_collections: CmsCollectionsTable;
  cms_entries: CmsEntriesTable;
  marketing_campaigns: MarketingCampaignsTable;
  marketing_posts: MarketingPostsTable;
}
