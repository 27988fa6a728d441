import path from 'node:path';
import { originList } from './core/origins.ts';
import { S3_MAX_COPY_BYTES, type StorageSettings, storageSettings, trustProxy } from './deployment-config.ts';

export interface Config extends StorageSettings {
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
  /** Where rate-limit counts live: this process (memory) or PostgreSQL, shared by every node. */
  rateLimitStore: 'memory' | 'postgres';
  /**
   * PostgreSQL: how long a node may serve a credential lookup from its cache, in seconds
   * (WOS_CREDENTIAL_CACHE_SECONDS, default 10; 0: no cache). Revocations reach every node at once (NOTIFY).
   */
  credentialCacheSeconds: number;
  /** Largest asset upload accepted through a signed upload URL (WOS_MAX_UPLOAD_BYTES, default 100 MiB). */
  maxUploadBytes: number;
  /** Time a request's head and body have to arrive, in ms (WOS_REQUEST_TIMEOUT_MS, default 300 s; 0: none). */
  requestTimeoutMs: number;
  /** Background worker on this node (webhook and notification deliveries): WOS_WORKER=off disables it. */
  worker: boolean;
  /** How often the worker looks for due work, in ms (WOS_WORKER_POLL_MS, default 1000). */
  workerPollMs: number;
  /** Lets webhook and push URLs reach loopback and private addresses (WOS_WEBHOOK_ALLOW_PRIVATE=true). */
  webhookAllowPrivate: boolean;
  /** Ports webhook and push URLs may use besides 80 and 443 (WOS_OUTBOUND_ALLOWED_PORTS, comma-separated). */
  outboundAllowedPorts: number[];
  /** Delays between delivery attempts (WOS_WEBHOOK_RETRY_SCHEDULE_MS, comma-separated ms). */
  webhookRetryScheduleMs: number[];
  /** Timeout of one outbound delivery request (WOS_WEBHOOK_TIMEOUT_MS, default 10 s). */
  webhookTimeoutMs: number;
  /** VAPID subject for web push (WOS_VAPID_SUBJECT: mailto: or https: URL). */
  vapidSubject: string | undefined;
  /** Days raw application events are kept (WOS_APP_EVENT_RETENTION_DAYS, default 90; the operator can set a workspace's own). */
  appEventRetentionDays: number;
  /** Days raw call events are kept (WOS_CALL_EVENT_RETENTION_DAYS, default 400); monthly aggregates are kept forever. */
  callEventRetentionDays: number;
  /** Days audit events are kept (WOS_AUDIT_RETENTION_DAYS); null, the default: kept forever. */
  auditRetentionDays: number | null;
  /** Origins every /v1 route sends CORS grants to (WOS_CORS_ORIGINS, comma-separated; default none). */
  corsOrigins: string[];
  /** Time limit of one heavy-read query, in ms (WOS_HEAVY_READ_TIMEOUT_MS, default 30 s). */
  heavyReadTimeoutMs: number;
  /** Heavy reads running at once: SQLite worker processes, or the PostgreSQL heavy pool's connections. */
  heavyReadPoolSize: number;
  /**
   * Heavy reads one workspace may run at once on this node (WOS_HEAVY_READS_PER_WORKSPACE, default 2); more
   * wait up to heavyReadWaitMs for a slot, then answer 429 rate_limited.
   */
  heavyReadsPerWorkspace: number;
  /** How long a heavy read waits for its workspace's slot, in ms (WOS_HEAVY_READ_WAIT_MS, default 2 s). */
  heavyReadWaitMs: number;
  /**
   * How long an event consumer may keep failing on one event before the relay gives it up for that
   * consumer, in minutes (WOS_OUTBOX_GIVE_UP_MINUTES, default 60; at least 1).
   */
  outboxGiveUpMinutes: number;
  /**
   * PostgreSQL: statement_timeout of the main pool's sessions, in ms (WOS_STATEMENT_TIMEOUT_MS, default 5 s;
   * 0: none). Bounds every API read and write; migrations and the CLI run without it.
   */
  statementTimeoutMs: number;
  /**
   * Checks every success body against its declared schema (WOS_VALIDATE_RESPONSES=on; the test suite turns
   * it on): a mismatch answers internal_error naming the operation and the field. Off in production.
   */
  validateResponses: boolean;
  /** OpenAI-compatible embeddings endpoint of external vector collections (WOS_EMBEDDINGS_URL). */
  embeddingsUrl: string | undefined;
  /** Model name sent to it (WOS_EMBEDDINGS_MODEL). */
  embeddingsModel: string | undefined;
  /** Bearer key for it (WOS_EMBEDDINGS_API_KEY): a secret, never logged. */
  embeddingsApiKey: string | undefined;
  /** Texts per embeddings request (WOS_EMBEDDINGS_BATCH_SIZE, default 64). */
  embeddingsBatchSize: number;
  /** Timeout of one embeddings request, in ms (WOS_EMBEDDINGS_TIMEOUT_MS, default 15 s). */
  embeddingsTimeoutMs: number;
  /** OpenAI-compatible chat-completions endpoint of the workspace assistant and service guide (WOS_LLM_URL). */
  llmUrl: string | undefined;
  /** Model name sent to it (WOS_LLM_MODEL). */
  llmModel: string | undefined;
  /** Bearer key for it (WOS_LLM_API_KEY): a secret, never logged. */
  llmApiKey: string | undefined;
  /** Timeout of one chat-completions request, in ms (WOS_LLM_TIMEOUT_MS, default 60 s). */
  llmTimeoutMs: number;
  /** Most model turns of one assistant run (WOS_ASSISTANT_MAX_STEPS, default 8). */
  assistantMaxSteps: number;
  /**
   * Collections with fewer documents than this are searched exactly; larger ones through an in-memory HNSW
   * index per collection (WOS_VECTOR_EXACT_THRESHOLD, default 10000).
   */
  vectorExactThreshold: number;
  /** Vectors the in-memory indexes of this node hold at most; least recently used go first (default 1M). */
  vectorIndexMaxVectors: number;
  /**
   * Proxies trusted to name the client in X-Forwarded-For (WOS_TRUST_PROXY: a hop count, or addresses and
   * CIDR ranges); Fastify's trustProxy. Unset: the peer is the client.
   */
  trustProxy: number | string[] | undefined;
}

/** The Standard Webhooks retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const STANDARD_RETRY_SCHEDULE_MS = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400].map(
  (s) => s * 1000,
);

function retrySchedule(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return STANDARD_RETRY_SCHEDULE_MS;
  const delays = value.split(',').map((part) => Number(part.trim()));
  if (delays.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new Error('WOS_WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated non-negative integers');
  }
  return delays;
}

function portList(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return [];
  const ports = value.split(',').map((part) => Number(part.trim()));
  if (ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
    throw new Error('WOS_OUTBOUND_ALLOWED_PORTS must be comma-separated port numbers (1-65535)');
  }
  return ports;
}

/** The operator token is a password for the whole installation: a short one is refused at start. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

function adminToken(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `WOS_ADMIN_TOKEN is ${value.length} characters long; it must have at least ${MIN_ADMIN_TOKEN_LENGTH} ` +
        '(generate one with: openssl rand -base64 32), or leave it unset to have one generated on first start',
    );
  }
  return value;
}

type Env = Record<string, string | undefined>;

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer`);
  return parsed;
}

function rateLimitStore(env: Env): Config['rateLimitStore'] {
  const store = env.WOS_RATE_LIMIT_STORE ?? (env.WOS_DATABASE_URL ? 'postgres' : 'memory');
  if (store !== 'memory' && store !== 'postgres')
    throw new Error('WOS_RATE_LIMIT_STORE must be memory or postgres');
  if (store === 'postgres' && !env.WOS_DATABASE_URL)
    throw new Error('WOS_RATE_LIMIT_STORE=postgres needs WOS_DATABASE_URL');
  return store;
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
    adminToken: adminToken(env.WOS_ADMIN_TOKEN),
    publicUrl: (env.WOS_PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    logLevel: env.WOS_LOG_LEVEL ?? 'info',
    mcpAllowedOrigins: originList(env.WOS_MCP_ALLOWED_ORIGINS, 'WOS_MCP_ALLOWED_ORIGINS'),
    defaultRateLimitPerMinute: integer(
      env.WOS_DEFAULT_RATE_LIMIT_PER_MINUTE,
      6000,
      'WOS_DEFAULT_RATE_LIMIT_PER_MINUTE',
    ),
    rateLimitStore: rateLimitStore(env),
    credentialCacheSeconds: integer(env.WOS_CREDENTIAL_CACHE_SECONDS, 10, 'WOS_CREDENTIAL_CACHE_SECONDS'),
    maxUploadBytes: integer(env.WOS_MAX_UPLOAD_BYTES, 100 * 1024 * 1024, 'WOS_MAX_UPLOAD_BYTES'),
    requestTimeoutMs: integer(env.WOS_REQUEST_TIMEOUT_MS, 300_000, 'WOS_REQUEST_TIMEOUT_MS'),
    worker: !['off', 'false', '0', 'no'].includes((env.WOS_WORKER ?? 'on').toLowerCase()),
    workerPollMs: Math.max(10, integer(env.WOS_WORKER_POLL_MS, 1000, 'WOS_WORKER_POLL_MS')),
    webhookAllowPrivate: env.WOS_WEBHOOK_ALLOW_PRIVATE === 'true',
    outboundAllowedPorts: portList(env.WOS_OUTBOUND_ALLOWED_PORTS),
    webhookRetryScheduleMs: retrySchedule(env.WOS_WEBHOOK_RETRY_SCHEDULE_MS),
    webhookTimeoutMs: integer(env.WOS_WEBHOOK_TIMEOUT_MS, 10_000, 'WOS_WEBHOOK_TIMEOUT_MS') || 10_000,
    vapidSubject: env.WOS_VAPID_SUBJECT || undefined,
    appEventRetentionDays:
      integer(env.WOS_APP_EVENT_RETENTION_DAYS, 90, 'WOS_APP_EVENT_RETENTION_DAYS') || 90,
    callEventRetentionDays:
      integer(env.WOS_CALL_EVENT_RETENTION_DAYS, 400, 'WOS_CALL_EVENT_RETENTION_DAYS') || 400,
    auditRetentionDays: integer(env.WOS_AUDIT_RETENTION_DAYS, 0, 'WOS_AUDIT_RETENTION_DAYS') || null,
    corsOrigins: originList(env.WOS_CORS_ORIGINS, 'WOS_CORS_ORIGINS'),
    heavyReadTimeoutMs: integer(env.WOS_HEAVY_READ_TIMEOUT_MS, 30_000, 'WOS_HEAVY_READ_TIMEOUT_MS') || 30_000,
    heavyReadPoolSize: Math.max(1, integer(env.WOS_HEAVY_READ_POOL_SIZE, 2, 'WOS_HEAVY_READ_POOL_SIZE')),
    heavyReadsPerWorkspace: Math.max(
      1,
      integer(env.WOS_HEAVY_READS_PER_WORKSPACE, 2, 'WOS_HEAVY_READS_PER_WORKSPACE'),
    ),
    heavyReadWaitMs: integer(env.WOS_HEAVY_READ_WAIT_MS, 2000, 'WOS_HEAVY_READ_WAIT_MS'),
    outboxGiveUpMinutes: Math.max(
      1,
      integer(env.WOS_OUTBOX_GIVE_UP_MINUTES, 60, 'WOS_OUTBOX_GIVE_UP_MINUTES'),
    ),
    statementTimeoutMs: integer(env.WOS_STATEMENT_TIMEOUT_MS, 5000, 'WOS_STATEMENT_TIMEOUT_MS'),
    validateResponses: ['on', 'true', '1', 'yes'].includes(
      (env.WOS_VALIDATE_RESPONSES ?? 'off').toLowerCase(),
    ),
    embeddingsUrl: env.WOS_EMBEDDINGS_URL || undefined,
    embeddingsModel: env.WOS_EMBEDDINGS_MODEL || undefined,
    embeddingsApiKey: env.WOS_EMBEDDINGS_API_KEY || undefined,
    embeddingsBatchSize: Math.max(1, integer(env.WOS_EMBEDDINGS_BATCH_SIZE, 64, 'WOS_EMBEDDINGS_BATCH_SIZE')),
    embeddingsTimeoutMs:
      integer(env.WOS_EMBEDDINGS_TIMEOUT_MS, 15_000, 'WOS_EMBEDDINGS_TIMEOUT_MS') || 15_000,
    llmUrl: env.WOS_LLM_URL || undefined,
    llmModel: env.WOS_LLM_MODEL || undefined,
    llmApiKey: env.WOS_LLM_API_KEY || undefined,
    llmTimeoutMs: integer(env.WOS_LLM_TIMEOUT_MS, 60_000, 'WOS_LLM_TIMEOUT_MS') || 60_000,
    assistantMaxSteps: Math.min(
      50,
      Math.max(1, integer(env.WOS_ASSISTANT_MAX_STEPS, 8, 'WOS_ASSISTANT_MAX_STEPS')),
    ),
    vectorExactThreshold: integer(env.WOS_VECTOR_EXACT_THRESHOLD, 10_000, 'WOS_VECTOR_EXACT_THRESHOLD'),
    vectorIndexMaxVectors: integer(
      env.WOS_VECTOR_INDEX_MAX_VECTORS,
      1_000_000,
      'WOS_VECTOR_INDEX_MAX_VECTORS',
    ),
    ...storageSettings(env),
    trustProxy: trustProxy(env.WOS_TRUST_PROXY),
    ...overrides,
  };
  if (config.databaseUrl && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    throw new Error('WOS_DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  if (config.assetStorage === 's3' && config.maxUploadBytes > S3_MAX_COPY_BYTES) {
    throw new Error(
      `WOS_MAX_UPLOAD_BYTES may be at most ${S3_MAX_COPY_BYTES} (5 GiB) with WOS_ASSET_STORAGE=s3: completing ` +
        'an upload copies its object, which S3 does in one request up to that size',
    );
  }
  return config;
}
