// What the in-process benches share (bench:bi-export, bench:vectors): the service built in this process on
// a fresh database (a temporary directory for SQLite, a new schema for PostgreSQL when BENCH_DATABASE_URL is
// set), a workspace without a rate limit and its API key, and requests through app.inject (routing,
// validation, the pipeline and the database, no sockets). The spawned-server benches make their workspaces
// with benchWorkspace too (analytics-service.ts prepare()).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { createCredential, createWorkspace, updateWorkspace } from '../src/admin/workspace-admin.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SCOPES } from '../src/core/catalogue.ts';
import { systemClock } from '../src/core/clock.ts';
import { newId } from '../src/core/ids.ts';
import type { DB } from '../src/db/tables.ts';

/** A workspace without a rate limit and an API key of `scopes` (all of them by default). */
export async function benchWorkspace(
  db: Kysely<DB>,
  name: string,
  scopes: readonly string[] = SCOPES,
): Promise<{ id: string; key: string }> {
  const call = { db, clock: systemClock, requestId: newId('req'), surface: 'cli' as const };
  const workspace = await createWorkspace(call, { name });
  await updateWorkspace(call, workspace.id, { rate_limit_per_minute: null });
  const credential = await createCredential(call, workspace.id, {
    kind: 'api_key',
    name: 'bench',
    scopes: [...scopes],
  });
  return { id: workspace.id, key: credential.token };
}

export type Service = Awaited<ReturnType<typeof buildApp>>;

/** The service on a fresh database; `close` stops it and removes its directory and schema. */
export async function startInProcess(name: string, env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wos-bench-${name}-`));
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_${name.replace(/-/g, '_')}_${Date.now()}`;
  const config = loadConfig({
    WOS_DATA_DIR: dir,
    WOS_LOG_LEVEL: 'error',
    ...env,
    ...(databaseUrl ? { WOS_DATABASE_URL: databaseUrl, WOS_DATABASE_SCHEMA: schema } : {}),
  });
  const service = await buildApp({ config });
  const close = async () => {
    await service.app.close();
    await service.deps.database.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    if (!databaseUrl) return;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`drop schema if exists ${schema}_jobs cascade`);
    await client.end();
  };
  return {
    service,
    config,
    db: service.deps.database.db,
    dialect: databaseUrl ? 'PostgreSQL' : 'SQLite',
    close,
  };
}

/** A request as `key` through app.inject: the JSON answer, or an error naming the status and body. */
export function injector(service: Service, key: string) {
  return async (method: 'POST' | 'GET', url: string, body?: unknown) => {
    const response = await service.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  };
}
