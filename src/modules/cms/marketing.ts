import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import {
  campaignStatus,
  marketingChannel as channel,
  MarketingCampaignSchema,
  MarketingPostSchema,
  postStatus,
} from './cms-schemas.ts';
import { insertCampaign, insertPost, listCampaigns, listPosts, toCampaign, toPost } from './cms-store.ts';
import type { MarketingCampaignsTable, MarketingChannel, MarketingPostsTable } from './cms-tables.ts';

export const campaignRecord = defineRecordType({
  type: 'marketing_campaign',
  module: 'cms',
  table: 'marketing_campaigns',
  collection: '/v1/marketing/campaigns',
  key: 'campaign',
  readScope: 'cms:read',
  schema: MarketingCampaignSchema,
  toResource: toCampaign,
});

export const postRecord = defineRecordType({
  type: 'marketing_post',
  module: 'cms',
  table: 'marketing_posts',
  collection: '/v1/marketing/posts',
  key: 'post',
  readScope: 'cms:read',
  schema: MarketingPostSchema,
  toResource: toPost,
});

const dateTime = (description?: string) =>
  Type.Optional(Type.String({ format: 'date-time', ...(description ? { description } : {}) }));

export const createMarketingCampaign = defineOperation({
  name: 'create_marketing_campaign',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'create',
  creates: 'marketing_campaign',
  summary: 'Create a marketing campaign',
  description:
    'Creates a marketing campaign with a channel (default other), status (default planned), optional budget and time window. Attach posts with create_marketing_post. Emits marketing_campaign.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    channel: Type.Optional(channel),
    status: Type.Optional(campaignStatus),
    budget_cents: Type.Optional(Type.Integer({ minimum: 0 })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'Default USD.' })),
    starts_at: dateTime(),
    ends_at: dateTime('Not before starts_at.'),
  }),
  rest: { method: 'POST', path: '/v1/marketing/campaigns' },
  responseKey: 'campaign',
  handler: async (ctx, input) => {
    const startsAt = input.starts_at ? new Date(input.starts_at).toISOString() : null;
    const endsAt = input.ends_at ? new Date(input.ends_at).toISOString() : null;
    if (startsAt && endsAt && endsAt < startsAt) {
      throw validationFailed([{ field: 'ends_at', message: 'must not be before starts_at' }]);
    }
    const row: MarketingCampaignsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('mcmp'),
      name: input.name,
      description: input.description ?? null,
      channel: input.channel ?? 'other',
      status: input.status ?? 'planned',
      budget_cents: input.budget_cents ?? null,
      currency: input.currency ?? 'USD',
      starts_at: startsAt,
      ends_at: endsAt,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertCampaign(ctx.db, row);
    const campaign = toCampaign(row);
    ctx.audit({ targetType: 'marketing_campaign', targetId: campaign.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'marketing_campaign.created',
      targetType: 'marketing_campaign',
      targetId: campaign.id,
      data: campaign,
    });
    return { body: { campaign }, createdId: campaign.id };
  },
});

export const listMarketingCampaigns = defineOperation({
  name: 'list_marketing_campaigns',
  module: 'cms',
  scopes: ['cms:read'],
  kind: 'read',
  summary: 'List marketing campaigns',
  description: 'Lists marketing campaigns, newest first; query matches name and description.',
  input: Strict({
    status: Type.Optional(campaignStatus),
    channel: Type.Optional(channel),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/marketing/campaigns' },
  responseKey: 'campaigns',
  heavy: heavyFilters({ indexed: ['status', 'channel'] }),
  handler: async (ctx, input) => {
    const page = await listCampaigns(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_marketing_campaigns', input),
    );
    return { body: listBody('campaigns', page) };
  },
});

export const createMarketingPost = defineOperation({
  name: 'create_marketing_post',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'create',
  example: { channel: 'email' },
  creates: 'marketing_post',
  summary: 'Create a marketing post',
  description:
    "Creates a marketing post (an email, social post, ad ...), optionally in a campaign and promoting a CMS entry (both must exist). channel defaults to the campaign's and is required without one; status defaults to draft. Emits marketing_post.created.",
  input: Strict({
    campaign_id: Type.Optional(Type.String({ minLength: 1 })),
    channel: Type.Optional(channel),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    body: Type.Optional(Type.String({ maxLength: 100_000 })),
    status: Type.Optional(postStatus),
    scheduled_at: dateTime('Required with status scheduled.'),
    published_at: dateTime('Only with status published; default now.'),
    cms_entry_id: Type.Optional(Type.String({ minLength: 1 })),
  }),
  rest: { method: 'POST', path: '/v1/marketing/posts' },
  responseKey: 'post',
  handler: async (ctx, input) => {
    const campaign = input.campaign_id
      ? await ctx.requireRecord('marketing_campaign', input.campaign_id)
      : undefined;
    if (input.cms_entry_id) await ctx.requireRecord('cms_entry', input.cms_entry_id);
    const status = input.status ?? 'draft';
    const postChannel = (input.channel ?? campaign?.channel) as MarketingChannel | undefined;
    const errors: FieldError[] = [];
    if (!postChannel) errors.push({ field: 'channel', message: 'is required when the post has no campaign' });
    if (status === 'scheduled' && !input.scheduled_at)
      errors.push({ field: 'scheduled_at', message: 'is required with status scheduled' });
    if (input.published_at && status !== 'published')
      errors.push({ field: 'published_at', message: 'is only allowed with status published' });
    if (errors.length) throw validationFailed(errors);
    const row: MarketingPostsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('mpst'),
      campaign_id: input.campaign_id ?? null,
      channel: postChannel!,
      title: input.title,
      body: input.body ?? null,
      status,
      scheduled_at: input.scheduled_at ? new Date(input.scheduled_at).toISOString() : null,
      published_at:
        status === 'published'
          ? input.published_at
            ? new Date(input.published_at).toISOString()
            : ctx.now
          : null,
      cms_entry_id: input.cms_entry_id ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertPost(ctx.db, row);
    const post = toPost(row);
    ctx.audit({ targetType: 'marketing_post', targetId: post.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'marketing_post.created', targetType: 'marketing_post', targetId: post.id, data: post });
    return { body: { post }, createdId: post.id };
  },
});

export const listMarketingPosts = defineOperation({
  name: 'list_marketing_posts',
  module: 'cms',
  scopes: ['cms:read'],
  kind: 'read',
  summary: 'List marketing posts',
  description: 'Lists marketing posts, newest first; query matches title and body.',
  input: Strict({
    status: Type.Optional(postStatus),
    channel: Type.Optional(channel),
    campaign_id: Type.Optional(Type.String({ minLength: 1 })),
    cms_entry_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/marketing/posts' },
  responseKey: 'posts',
  heavy: heavyFilters({ indexed: ['status', 'channel', 'campaign_id'], scans: ['cms_entry_id'] }),
  handler: async (ctx, input) => {
    const page = await listPosts(ctx.db, ctx.workspaceId, input, pageRequest('list_marketing_posts', input));
    return { body: listBody('posts', page) };
  },
});
