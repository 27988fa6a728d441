// Credential lookups are cached per node; on PostgreSQL a revoked credential, a changed or deleted workspace
// reach every node's cache by NOTIFY at commit (not when the cache's time-to-live ends); on SQLite another
// process's commit shows in PRAGMA data_version.
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../src/app.ts';
import { forgetCachedPrincipals, notifyPrincipalChange } from '../src/core/principal-cache.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let sibling: Service | undefined;
let ws: TestWorkspace;

// An hour: anything that stops working within the test did so by notification.
const LONG_TTL = { WOS_CREDENTIAL_CACHE_SECONDS: '3600' };

beforeAll(async () => {
  h = await Harness.start({ env: LONG_TTL });
  ws = await h.workspace();
  if (usingPostgres) {
    sibling = await h.startSibling();
    await until(async () => h.service.deps.principals!.active && sibling!.deps.principals!.active);
  }
});
afterAll(async () => {
  await sibling?.app.close();
  await h.close();
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the condition never held');
}

const listOn = async (service: Service, token: string) => {
  const response = await service.app.inject({
    method: 'GET',
    url: '/v1/contacts',
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.statusCode, code: JSON.parse(response.body).error?.code as string | undefined };
};
const refusedOn = (service: Service, token: string, code: string) => async () =>
  (await listOn(service, token)).code === code;

describe('credential cache', () => {
  it('a revoked credential stops working on the revoking node as soon as the revocation returns', async () => {
    const { token, credential } = await h.createCredential(ws.id, 'api_key');
    expect((await listOn(h.service, token)).status).toBe(200);
    expect((await listOn(h.service, token)).status).toBe(200);
    expect((await h.admin('DELETE', `/credentials/${credential.id}`)).status).toBeLessThan(300);
    expect(await listOn(h.service, token)).toEqual({ status: 404, code: 'workspace_not_found' });
  });

  it.runIf(usingPostgres)('a revoked credential stops working on every node', async () => {
    expect(h.config.credentialCacheSeconds).toBe(3600);
    const { token, credential } = await h.createCredential(ws.id, 'api_key');
    expect((await listOn(sibling!, token)).status).toBe(200);
    expect((await listOn(h.service, token)).status).toBe(200);
    expect((await h.admin('DELETE', `/credentials/${credential.id}`)).status).toBeLessThan(300);
    await until(refusedOn(sibling!, token, 'workspace_not_found'));
    expect(await listOn(h.service, token)).toEqual({ status: 404, code: 'workspace_not_found' });
  });

  it.runIf(usingPostgres)(
    'serves a cached credential until a notification says it changed (a change made in SQL)',
    async () => {
      const { token, credential } = await h.createCredential(ws.id, 'api_key');
      expect((await listOn(sibling!, token)).status).toBe(200);
      await h.db
        .updateTable('credentials')
        .set({ revoked_at: new Date().toISOString() })
        .where('id', '=', credential.id)
        .execute();
      // No notification yet: the sibling answers from its cache (for at most its time-to-live).
      expect((await listOn(sibling!, token)).status).toBe(200);
      await h.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await notifyPrincipalChange(trx, ws.id);
      });
      await until(refusedOn(sibling!, token, 'workspace_not_found'));
    },
  );

  it.runIf(usingPostgres)('a changed or deleted workspace reaches every node', async () => {
    const other = await h.workspace('Changed workspace');
    expect((await listOn(sibling!, other.apiKey)).status).toBe(200);
    const patched = await h.admin('PATCH', `/workspaces/${other.id}`, { modules: { crm: false } });
    expect(patched.status).toBe(200);
    await until(refusedOn(sibling!, other.apiKey, 'module_not_enabled'));
    expect((await h.admin('PATCH', `/workspaces/${other.id}`, { modules: { crm: true } })).status).toBe(200);
    await until(async () => (await listOn(sibling!, other.apiKey)).status === 200);
    expect((await h.admin('DELETE', `/workspaces/${other.id}`)).status).toBeLessThan(300);
    await until(refusedOn(sibling!, other.apiKey, 'workspace_not_found'));
  });

  it.runIf(!usingPostgres)(
    'SQLite: serves a cached credential until this process changes it, or another process commits',
    async () => {
      expect(h.service.deps.principals!.active).toBe(true);
      const revoke = (id: string) =>
        h.db.updateTable('credentials').set({ revoked_at: new Date().toISOString() }).where('id', '=', id);
      const cached = await h.createCredential(ws.id, 'api_key');
      expect((await listOn(h.service, cached.token)).status).toBe(200);
      // A change on the service's own connection that skips forgetCachedPrincipals: still served from cache.
      await revoke(cached.credential.id).execute();
      expect((await listOn(h.service, cached.token)).status).toBe(200);
      forgetCachedPrincipals();
      expect(await listOn(h.service, cached.token)).toEqual({ status: 404, code: 'workspace_not_found' });

      // Another process (the CLI) writing the file: PRAGMA data_version moves, the next lookup reads again.
      const { token, credential } = await h.createCredential(ws.id, 'api_key');
      expect((await listOn(h.service, token)).status).toBe(200);
      const cli = new SQLite(h.service.deps.database.location);
      try {
        cli
          .prepare('update credentials set revoked_at = ? where id = ?')
          .run(new Date().toISOString(), credential.id);
      } finally {
        cli.close();
      }
      expect(await listOn(h.service, token)).toEqual({ status: 404, code: 'workspace_not_found' });
    },
  );

  it('caches nothing with WOS_CREDENTIAL_CACHE_SECONDS=0, nor on PostgreSQL without the LISTEN connection', async () => {
    const node = await h.startSibling({ credentialCacheSeconds: 0 });
    expect(node.deps.principals).toBeUndefined();
    await node.app.close();
  });
});
