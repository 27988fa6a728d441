import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL schema to use (tests create one per run); unset: the server's default search_path. */
  databaseSchema: string | undefined;
  databasePoolSize: number;
  sqliteSynchronous: 'normal' | 'full';
  adminToken: string | undefined;
  publicUrl: string;
  logLevel: string;
  /** Origins allowed to call /mcp from a browser; empty means loopback origins only. */
  mcpAllowedOrigins: string[];
  defaultRateLimitPerMinute: number;
}

type Env = Record<string, string | undefined>;

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer`);
  return parsed;
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = overrides.port ?? integer(env.PORT, 8080, 'PORT');
  const host = overrides.host ?? env.HOST ?? '127.0.0.1';
  const synchronous = (env.WOS_SQLITE_SYNCHRONOUS ?? 'normal').toLowerCase();
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new Error('WOS_SQLITE_SYNCHRONOUS must be normal or full');
  }
  const config: Config = {
    port,
    host,
    dataDir: path.resolve(env.WOS_DATA_DIR ?? './data'),
    databaseUrl: env.WOS_DATABASE_URL || undefined,
    databaseSchema: env.WOS_DATABASE_SCHEMA || undefined,
    databasePoolSize: integer(env.WOS_DATABASE_POOL_SIZE, 10, 'WOS_DATABASE_POOL_SIZE'),
    sqliteSynchronous: synchronous,
    adminToken: env.WOS_ADMIN_TOKEN || undefined,
    publicUrl: (env.WOS_PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    logLevel: env.WOS_LOG_LEVEL ?? 'info',
    mcpAllowedOrigins: (env.WOS_MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    defaultRateLimitPerMinute: integer(env.WOS_DEFAULT_RATE_LIMIT_PER_MINUTE, 6000, 'WOS_DEFAULT_RATE_LIMIT_PER_MINUTE'),
    ...overrides,
  };
  if (config.databaseUrl && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    throw new Error('WOS_DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  return config;
}
