import { type Static, Type } from '@sinclair/typebox';
import {
  Cents,
  Currency,
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';
import { MapOf } from '../../core/schema.ts';
import { FIELD_TYPES } from './entry-fields.ts';

export const entryStatus = Enum(['draft', 'review', 'published', 'archived'] as const);
export const marketingChannel = Enum(['email', 'social', 'ads', 'web', 'event', 'other'] as const);
export const campaignStatus = Enum(['planned', 'active', 'paused', 'completed'] as const);
export const postStatus = Enum(['draft', 'scheduled', 'published'] as const);

// The CMS and marketing resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.

export const CmsSiteSchema = Resource('CmsSite', {
  id: RecordId('site'),
  name: Text('Northwind blog'),
  domain: NullableText('blog.northwind.example'),
  default_locale: Text('en-US'),
  description: NullableText('Product news and customer stories.'),
  ...timestamps,
});
export type CmsSite = Static<typeof CmsSiteSchema>;

export const CmsCollectionSchema = Resource('CmsCollection', {
  id: RecordId('col'),
  site_id: RecordId('site'),
  key: Text('articles'),
  name: Text('Articles'),
  description: NullableText('Long-form posts.'),
  fields: Type.Array(
    Shape({
      key: Text('body'),
      type: Enum(FIELD_TYPES),
      label: NullableText('Body'),
      required: Type.Boolean(),
      list: Type.Boolean(),
    }),
  ),
  ...timestamps,
});
export type CmsCollection = Static<typeof CmsCollectionSchema>;

export const CmsEntrySchema = Resource('CmsEntry', {
  id: RecordId('ent'),
  site_id: RecordId('site'),
  collection_id: RecordId('col'),
  title: Text('Spring launch'),
  slug: Text('spring-launch'),
  fields: MapOf(Type.Unknown({ description: 'A value of the type its field definition declares.' }), {
    description: "Values by field key, as the collection's field definitions declare them.",
    examples: [{ body: 'Everything new this spring.', featured: true }],
  }),
  status: entryStatus,
  published_at: NullableTimestamp(),
  ...timestamps,
});
export type CmsEntry = Static<typeof CmsEntrySchema>;

/** entry.status_changed's data. */
export const EntryStatusChangeSchema = Type.Object(
  { entry: CmsEntrySchema, previous_status: entryStatus },
  { additionalProperties: false },
);

export const MarketingCampaignSchema = Resource('MarketingCampaign', {
  id: RecordId('mcmp'),
  name: Text('Spring launch'),
  description: NullableText('Launch of the spring collection.'),
  channel: marketingChannel,
  status: campaignStatus,
  budget_cents: Nullable(Cents()),
  currency: Currency,
  starts_at: NullableTimestamp(),
  ends_at: NullableTimestamp(),
  ...timestamps,
});
export type MarketingCampaign = Static<typeof MarketingCampaignSchema>;

export const MarketingPostSchema = Resource('MarketingPost', {
  id: RecordId('mpst'),
  campaign_id: Nullable(RecordId('mcmp')),
  channel: marketingChannel,
  title: Text('Meet the spring collection'),
  body: NullableText('Three new colours, one new fabric.'),
  status: postStatus,
  scheduled_at: NullableTimestamp(),
  published_at: NullableTimestamp(),
  cms_entry_id: Nullable(RecordId('ent')),
  ...timestamps,
});
export type MarketingPost = Static<typeof MarketingPostSchema>;
