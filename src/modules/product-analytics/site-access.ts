// Site keys as credentials of the ingest route: a browser's key opens its site's workspace for ingest only
// (analytics:write), from the site's allowed origins, while the site is active and the key unexpired.
import type { Kysely } from 'kysely';
import { type BrowserAccess, loadWorkspace, type Principal } from '../../core/auth.ts';
import { fail } from '../../core/errors.ts';
import type { DB } from '../../db/tables.ts';
import type { AnalyticsSitesTable } from './analytics-tables.ts';
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
};
