// The statements one REST create sends to PostgreSQL: the service built in this process over a migrated
// schema, every pg client's query() counted (the pool's, the rate limiter's, the listener's), one create with
// an idempotency key after a warm-up one. The outbox relay is stopped: its work follows the response. A query
// handed to pg with its transaction's BEGIN in front, or while the one before is unanswered (pipelined), shares
// that round trip.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createCredential, createWorkspace, updateWorkspace } from '../src/admin/workspace-admin.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SCOPES } from '../src/core/catalogue.ts';
import { newId } from '../src/core/ids.ts';
import { sentWithBegin } from '../src/db/pg-driver.ts';
import type { Place } from './analytics-service.ts';

export async function countRoundTrips(place: Place): Promise<{ statements: string[]; roundTrips: number }> {
  const config = loadConfig({
    ...place.env,
    WOS_ADMIN_TOKEN: 'wos_op_bench-operator-token-000000000000000000000000',
    WOS_WORKER: 'off',
    WOS_LOG_LEVEL: 'warn',
  });
  const service = await buildApp({ config });
  try {
    const call = {
      db: service.deps.database.db,
      clock: service.deps.clock,
      requestId: newId('req'),
      surface: 'cli' as const,
    };
    const workspace = await createWorkspace(call, { name: 'Round trips' });
    await updateWorkspace(call, workspace.id, { rate_limit_per_minute: 1_000_000 });
    const { token } = await createCredential(call, workspace.id, {
      kind: 'api_key',
      name: 'trips',
      scopes: [...SCOPES],
    });
    await service.deps.relay.stop();
    const create = () =>
      service.app.inject({
        method: 'POST',
        url: '/v1/contacts',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'Trips', idempotency_key: randomBytes(8).toString('hex') },
      });
    if ((await create()).statusCode !== 201) throw new Error('the warm-up create failed');
    const statements: string[] = [];
    let roundTrips = 0;
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client & { readyForQuery: boolean }, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      const shared = !this.readyForQuery; // pipelined behind an unanswered query
      if (!shared) roundTrips++;
      if (sentWithBegin(args[0])) statements.push('begin (in the same round trip as the next)');
      const statement = String(text).replace(/\s+/g, ' ').slice(0, 110);
      statements.push(shared ? `${statement} (pipelined)` : statement);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    try {
      const response = await create();
      if (response.statusCode !== 201) throw new Error(`create: ${response.statusCode} ${response.body}`);
    } finally {
      pg.Client.prototype.query = original;
    }
    return { statements, roundTrips };
  } finally {
    await service.app.close();
  }
}
