// Rate limits are per workspace across every node: on PostgreSQL the counts live in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let sibling: Service | undefined;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  await h.admin('PATCH', `/workspaces/${ws.id}`, { rate_limit_per_minute: 3 });
});
afterAll(async () => {
  await sibling?.app.close();
  await h.close();
});

const list = (service: Service) =>
  service.app.inject({
    method: 'GET',
    url: '/v1/contacts',
    headers: { authorization: `Bearer ${ws.apiKey}` },
  });

describe('rate limits across nodes', () => {
  it.runIf(usingPostgres)(
    'share one count per workspace between two nodes on one PostgreSQL database',
    async () => {
      expect(h.config.rateLimitStore).toBe('postgres');
      sibling = await h.startSibling();
      expect((await list(h.service)).statusCode).toBe(200);
      expect((await list(sibling)).statusCode).toBe(200);
      expect((await list(h.service)).statusCode).toBe(200);
      const fourth = await list(sibling);
      expect(fourth.statusCode).toBe(429);
      expect(fourth.headers['ratelimit-policy']).toBe('"workspace";q=3;w=60');
      const rows = await h.db
        .selectFrom('wos_rate_limits' as 'contacts')
        .selectAll()
        .execute();
      expect(rows.length).toBeGreaterThan(0);
    },
  );

  it('keeps counts in memory on SQLite, and needs PostgreSQL for the shared store', async () => {
    expect(loadConfig({}).rateLimitStore).toBe('memory');
    expect(loadConfig({ WOS_DATABASE_URL: 'postgres://x@127.0.0.1/db' }).rateLimitStore).toBe('postgres');
    expect(
      loadConfig({ WOS_DATABASE_URL: 'postgres://x@127.0.0.1/db', WOS_RATE_LIMIT_STORE: 'memory' })
        .rateLimitStore,
    ).toBe('memory');
    expect(() => loadConfig({ WOS_RATE_LIMIT_STORE: 'postgres' })).toThrow(/needs WOS_DATABASE_URL/);
    expect(() => loadConfig({ WOS_RATE_LIMIT_STORE: 'redis' })).toThrow(/memory or postgres/);
  });
});
