// Site keys: minted on create, replaced by rotate_analytics_site_key with an overlap during which the
// rotated-out key keeps working (pages still serving the old key keep sending events).
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { Strict } from '../../core/schema.ts';
import type { AnalyticsSiteKeysTable } from './analytics-tables.ts';
import { findSite, rotateKey, toSite, updateSiteRow } from './site-store.ts';

export const SITE_KEY_PREFIX = 'wos_site_';
const DEFAULT_OVERLAP_HOURS = 24;
const HOUR_MS = 3_600_000;

/** A new current key: public by design (it sits in web pages), so stored as it is; 256 random bits. */
export function mintSiteKey(workspaceId: string, siteId: string, now: string): AnalyticsSiteKeysTable {
  return {
    key: SITE_KEY_PREFIX + randomBytes(32).toString('base64url'),
    workspace_id: workspaceId,
    site_id: siteId,
    created_at: now,
    expires_at: null,
  };
}

export const siteId = Type.String({ minLength: 1, description: 'ID of the site (asite_...).' });

export const rotateSiteKey = defineOperation({
  name: 'rotate_analytics_site_key',
  module: 'product_analytics_bi',
  scopes: ['analytics:write'],
  kind: 'action',
  extension: true,
  summary: 'Rotate the key of an Analytics Site',
  description:
    'Issues a new site key. The old key keeps working for overlap_hours (default 24, 0 = stops now); keys ' +
    'rotated out earlier stop by then too. The answer shows the new site_key and previous_key with its ' +
    'expires_at. Emits analytics_site.key_rotated.',
  input: Strict({
    site_id: siteId,
    overlap_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 168,
        examples: [24],
        description: 'Hours the old key keeps working, 0 to 168 (default 24).',
      }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/insights/sites/{site_id}/rotate-key' },
  responseKey: 'analytics_site',
  handler: async (ctx, input) => {
    const row = await findSite(ctx.db, ctx.workspaceId, input.site_id, ctx.now);
    if (!row || row.archived_at) throw notFound('analytics site');
    const overlap = (input.overlap_hours ?? DEFAULT_OVERLAP_HOURS) * HOUR_MS;
    const expiresAt = new Date(Date.parse(ctx.now) + overlap).toISOString();
    // The row update comes first: its lock orders concurrent rotations of this site.
    await updateSiteRow(ctx.db, ctx.workspaceId, row.id, { updated_at: ctx.now });
    const next = mintSiteKey(ctx.workspaceId, row.id, ctx.now);
    await rotateKey(ctx.db, ctx.workspaceId, row.id, next, expiresAt);
    const rotated = await findSite(ctx.db, ctx.workspaceId, row.id, ctx.now);
    const site = toSite(rotated!);
    ctx.audit({
      targetType: 'analytics_site',
      targetId: row.id,
      action: 'rotate_key',
      changedFields: ['site_key', 'previous_key'],
    });
    ctx.emit({
      name: 'analytics_site.key_rotated',
      targetType: 'analytics_site',
      targetId: row.id,
      data: site,
    });
    return { body: { analytics_site: site } };
  },
});
