// Site keys as credentials of the ingest route: a browser's key opens its site's workspace for ingest only
// (analytics:write), from the site's allowed origins, while the site is active and the key unexpired. Its
// calls are bounded by the site's own limits, never the workspace's rate limit.
import type { Kysely } from 'kysely';
import { type BrowserAccess, loadWorkspace, type Principal } from '../../core/auth.ts';
import { fail } from '../../core/errors.ts';
import type { TransactionRunner } from '../../db/group-commit.ts';
import type { DB } from '../../db/tables.ts';
import { MAX_BATCH } from './analytics-schemas.ts';
import type { AnalyticsSitesTable } from './analytics-tables.ts';
import { countSiteEvents } from './app-event-store.ts';
import { SITE_KEY_PREFIX } from './site-keys.ts';
import { originAllowed } from './site-origins.ts';
import { findSiteByKey } from './site-store.ts';

/** The live site of a key: unknown and expired keys are the unknown-credential answer (404). */
async function liveSite(db: Kysely<DB>, key: string, now: Date): Promise<AnalyticsSitesTable> {
  const found = key.startsWith(SITE_KEY_PREFIX) ? await findSiteByKey(db, key) : undefined;
  if (!found || (found.expiresAt !== null && found.expiresAt <= now.toISOString())) {
    throw fail('workspace_not_found', { message: 'No active site has this site key.' });
  }
  return found.site;
}

/** What a call counts toward its site's limits: the events it sends, stored, duplicate or refused alike. */
function eventsSent(input: unknown): number {
  const events = (input as { events?: unknown } | null)?.events;
  return Array.isArray(events) ? Math.min(MAX_BATCH, Math.max(1, events.length)) : 1;
}

/**
 * Counts a call against its site's per-minute limit and daily quota (UTC), in a transaction of its own:
 * it counts whatever becomes of the call. One that would pass either counts nothing and is refused.
 */
async function admitToSite(transaction: TransactionRunner, principal: Principal, input: unknown, now: Date) {
  const workspaceId = principal.workspace.id;
  const siteId = principal.credential.id;
  const events = eventsSent(input);
  const iso = now.toISOString();
  await transaction(async (trx) => {
    const site = await trx
      .selectFrom('analytics_sites')
      .select(['events_per_minute', 'daily_quota'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', siteId)
      .executeTakeFirstOrThrow();
    const windows = [
      {
        bucket: `minute:${iso.slice(0, 16)}`,
        limit: Number(site.events_per_minute),
        what: 'per-minute limit',
        ends: Math.floor(now.getTime() / 60_000) * 60_000 + 60_000,
      },
      {
        bucket: `day:${iso.slice(0, 10)}`,
        limit: Number(site.daily_quota),
        what: 'daily quota',
        ends: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1),
      },
    ];
    for (const window of windows) {
      const total = await countSiteEvents(trx, workspaceId, siteId, window.bucket, events, window.limit);
      if (total !== undefined) continue;
      throw fail('rate_limited', {
        message: `The site's ${window.what} (${window.limit} events) is reached; retry after retry_after_seconds.`,
        retry_after_seconds: Math.max(1, Math.ceil((window.ends - now.getTime()) / 1000)),
      });
    }
  });
}

export const siteAccess: BrowserAccess = {
  keyPrefix: SITE_KEY_PREFIX,
  queryParam: 'site_key',
  async authenticate(db, key, origin, now): Promise<Principal> {
    const site = await liveSite(db, key, now);
    if (site.archived_at !== null || site.status !== 'active') {
      throw fail('credential_not_allowed', {
        message: `This site is ${site.archived_at !== null ? 'archived' : 'paused'}: its key takes no events.`,
      });
    }
    if (!originAllowed(JSON.parse(site.allowed_origins) as string[], origin)) {
      throw fail('origin_not_allowed', {
        message: "A site key is accepted only from the site's allowed origins (the Origin header).",
      });
    }
    const workspace = await loadWorkspace(db, site.workspace_id);
    if (!workspace) throw fail('workspace_not_found');
    return {
      workspace,
      credential: { id: site.id, kind: 'site_key', name: site.name, scopes: new Set(['analytics:write']) },
    };
  },
  async allowsOrigin(db, key, origin, now) {
    try {
      const site = await liveSite(db, key, now);
      return (
        site.archived_at === null &&
        site.status === 'active' &&
        originAllowed(JSON.parse(site.allowed_origins) as string[], origin)
      );
    } catch {
      return false;
    }
  },
  admit: admitToSite,
};
