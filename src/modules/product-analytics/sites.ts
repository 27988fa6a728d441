// Analytics Sites: what a browser holding a site key may send (origins, apps), how it is checked (the
// validation mode) and how much (events per minute, daily quota). Reads show the key: it is public by design.
import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import { defineOperation, type OperationDefinition } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType, type RecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { AnalyticsSiteSchema, ValidationModeSchema } from './analytics-schemas.ts';
import type { AnalyticsSitesTable, SiteStatus } from './analytics-tables.ts';
import { mintSiteKey, rotateSiteKey, siteId } from './site-keys.ts';
import { normalizeOrigins } from './site-origins.ts';
import { findSite, insertSite, listSites, toSite, updateSiteRow } from './site-store.ts';

export const siteRecord = defineRecordType({
  type: 'analytics_site',
  module: 'product_analytics_bi',
  table: 'analytics_sites',
  collection: '/v1/insights/sites',
  key: 'analytics_site',
  readScope: 'analytics:read',
  hiddenWhen: 'archived_at',
  load: findSite,
  schema: AnalyticsSiteSchema,
  toResource: toSite,
});

const DEFAULTS = { events_per_minute: 6000, daily_quota: 1_000_000 } as const;

const name = Type.String({ minLength: 1, maxLength: 200 });
const status = Enum(['active', 'paused'] as const, {
  description: "Default active; a paused site's key is refused (403).",
});
const fields = {
  allowed_origins: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
    minItems: 1,
    maxItems: 50,
    examples: [['https://shop.example.com', 'https://*.example.com']],
    description:
      'scheme://host[:port] exactly, or https://*.example.com for its subdomains (not example.com).',
  }),
  allowed_apps: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 100,
    uniqueItems: true,
    examples: [['shop']],
    description: 'Apps the key may send; empty (default): any.',
  }),
  validation_mode: ValidationModeSchema,
  events_per_minute: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    description: 'Default 6,000; beyond it 429.',
  }),
  daily_quota: Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    description: 'Events per UTC day; default 1,000,000; beyond it 429.',
  }),
  status,
};
const UPDATABLE = [
  'name',
  'allowed_origins',
  'allowed_apps',
  'validation_mode',
  'events_per_minute',
  'daily_quota',
  'status',
] as const;

/** The stored (JSON) form of the origins sent, or validation_failed naming each bad one. */
function storedOrigins(origins: string[]): string {
  const { origins: normalized, errors } = normalizeOrigins(origins);
  if (errors.length) throw validationFailed(errors);
  return JSON.stringify(normalized);
}

export const createSite = defineOperation({
  name: 'create_analytics_site',
  module: 'product_analytics_bi',
  scopes: ['analytics:write'],
  kind: 'create',
  creates: 'analytics_site',
  extension: true,
  summary: 'Create an Analytics Site',
  description:
    'Creates a site that lets browsers send app events with its site key (wos_site_..., public, shown on ' +
    'every read) from its allowed origins. Defaults: any app, validation_mode off, 6,000 events a minute, ' +
    '1,000,000 a day, active. Emits analytics_site.created.',
  input: Strict({
    name,
    allowed_origins: fields.allowed_origins,
    allowed_apps: Type.Optional(fields.allowed_apps),
    validation_mode: Type.Optional(fields.validation_mode),
    events_per_minute: Type.Optional(fields.events_per_minute),
    daily_quota: Type.Optional(fields.daily_quota),
    status: Type.Optional(status),
  }),
  rest: { method: 'POST', path: '/v1/insights/sites' },
  responseKey: 'analytics_site',
  handler: async (ctx, input) => {
    const row: AnalyticsSitesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('asite'),
      name: input.name,
      allowed_origins: storedOrigins(input.allowed_origins),
      allowed_apps: JSON.stringify(input.allowed_apps ?? []),
      validation_mode: input.validation_mode ?? 'off',
      events_per_minute: input.events_per_minute ?? DEFAULTS.events_per_minute,
      daily_quota: input.daily_quota ?? DEFAULTS.daily_quota,
      status: (input.status ?? 'active') as SiteStatus,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    const key = mintSiteKey(ctx.workspaceId, row.id, ctx.now);
    await insertSite(ctx.db, row, key);
    const site = toSite({ ...row, site_key: key.key, previous_key: null });
    ctx.audit({ targetType: 'analytics_site', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'analytics_site.created', targetType: 'analytics_site', targetId: row.id, data: site });
    return { body: { analytics_site: site }, createdId: row.id };
  },
});

export const listSitesOperation = defineOperation({
  name: 'list_analytics_sites',
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  summary: 'List Analytics Sites',
  description:
    'Lists Analytics Sites with their keys, newest first, filtered by status; `query` matches the name ' +
    'case-insensitively. Archived sites are not listed.',
  input: Strict({
    status: Type.Optional(status),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/insights/sites' },
  responseKey: 'analytics_sites',
  handler: async (ctx, input) => {
    const page = await listSites(
      ctx.db,
      ctx.workspaceId,
      input as { status?: SiteStatus; query?: string },
      pageRequest('list_analytics_sites', input),
      ctx.now,
    );
    return { body: listBody('analytics_sites', page) };
  },
});

export const updateSite = defineOperation({
  name: 'update_analytics_site',
  module: 'product_analytics_bi',
  scopes: ['analytics:write'],
  kind: 'update',
  extension: true,
  summary: 'Update an Analytics Site',
  description:
    "Changes a site's name, allowed origins or apps (each list replaced), validation mode, limits or " +
    'status (paused refuses its key). The key changes only with rotate_analytics_site_key. Emits ' +
    'analytics_site.updated.',
  input: Strict({
    site_id: siteId,
    name: Type.Optional(name),
    allowed_origins: Type.Optional(fields.allowed_origins),
    allowed_apps: Type.Optional(fields.allowed_apps),
    validation_mode: Type.Optional(fields.validation_mode),
    events_per_minute: Type.Optional(fields.events_per_minute),
    daily_quota: Type.Optional(fields.daily_quota),
    status: Type.Optional(status),
  }),
  rest: { method: 'PATCH', path: '/v1/insights/sites/{site_id}' },
  responseKey: 'analytics_site',
  handler: async (ctx, input) => {
    requireSomeField(input, UPDATABLE);
    const row = await findSite(ctx.db, ctx.workspaceId, input.site_id, ctx.now);
    if (!row || row.archived_at) throw notFound('analytics site');
    const proposed = {
      ...input,
      allowed_origins: input.allowed_origins && storedOrigins(input.allowed_origins),
      allowed_apps: input.allowed_apps && JSON.stringify(input.allowed_apps),
    };
    const { changes, changed } = diffFields<AnalyticsSitesTable>(row, proposed, UPDATABLE);
    ctx.audit({ targetType: 'analytics_site', targetId: row.id, changedFields: changed });
    if (changed.length === 0) return { body: { analytics_site: toSite(row) } };
    const set = { ...changes, updated_at: ctx.now };
    await updateSiteRow(ctx.db, ctx.workspaceId, row.id, set);
    const site = toSite({ ...row, ...set });
    ctx.emit({ name: 'analytics_site.updated', targetType: 'analytics_site', targetId: row.id, data: site });
    return { body: { analytics_site: site } };
  },
});

export const archiveSite = defineOperation({
  name: 'archive_analytics_site',
  module: 'product_analytics_bi',
  scopes: ['analytics:write'],
  kind: 'archive',
  extension: true,
  summary: 'Archive an Analytics Site',
  description:
    'Archives a site: its keys are refused from now on (403) and it leaves lists and lookups; its history ' +
    'stays readable (get_record_history, target_type analytics_site). Archiving it again returns it ' +
    'unchanged. Emits analytics_site.archived.',
  input: Strict({ site_id: siteId }),
  rest: { method: 'DELETE', path: '/v1/insights/sites/{site_id}' },
  responseKey: 'analytics_site',
  handler: async (ctx, input) => {
    const row = await findSite(ctx.db, ctx.workspaceId, input.site_id, ctx.now);
    if (!row) throw notFound('analytics site');
    if (row.archived_at) {
      ctx.audit({ targetType: 'analytics_site', targetId: row.id, changedFields: [] });
      return { body: { analytics_site: toSite(row) } };
    }
    const changes = { archived_at: ctx.now, updated_at: ctx.now };
    await updateSiteRow(ctx.db, ctx.workspaceId, row.id, changes);
    const site = toSite({ ...row, ...changes });
    ctx.audit({ targetType: 'analytics_site', targetId: row.id, changedFields: ['archived_at'] });
    ctx.emit({ name: 'analytics_site.archived', targetType: 'analytics_site', targetId: row.id, data: site });
    return { body: { analytics_site: site } };
  },
});

export const siteOperations: OperationDefinition[] = [
  listSitesOperation,
  createSite,
  updateSite,
  archiveSite,
  rotateSiteKey,
];
export const siteRecordTypes: RecordType[] = [siteRecord];
