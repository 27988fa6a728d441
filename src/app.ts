// Builds the Fastify application without listening, so tests can inject requests or listen themselves.
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import findMyWay, { type HTTPMethod } from 'find-my-way';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { type Clock, systemClock } from './core/clock.ts';
import { fail } from './core/errors.ts';
import { newId } from './core/ids.ts';
import { createAuthThrottle } from './core/auth-throttle.ts';
import { createRateLimiter, memoryStore, postgresStore, type RateLimiter } from './core/rate-limit.ts';
import { createUsageRecorder } from './core/usage-recorder.ts';
import { MALFORMED_JSON, type PipelineDeps } from './core/run-operation.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createQueueBackend, startWorker, type Worker } from './jobs/worker.ts';
import { buildRegistry, type Registry } from './registry.ts';
import { registerAdminRoutes } from './surfaces/admin/admin-routes.ts';
import { registerAssetContentRoutes } from './surfaces/assets/asset-content-routes.ts';
import { registerDocsRoutes } from './surfaces/docs/docs-routes.ts';
import { sendError } from './surfaces/http-errors.ts';
import { registerMcpEndpoint } from './surfaces/mcp/mcp-endpoint.ts';
import { buildOpenApi } from './surfaces/openapi/openapi.ts';
import { registerRestRoutes } from './surfaces/rest/rest-routes.ts';
import { createMetrics, registerSystemRoutes } from './surfaces/system-routes.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppOptions {
  config: Config;
  database?: Database;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  registry?: Registry;
  logger?: Logger;
}

export interface Service {
  app: FastifyInstance;
  deps: PipelineDeps;
  /** The background worker, when config.worker is on. */
  worker?: Worker;
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    // Tokens travel in Authorization headers; they must never reach a log line.
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.token'], censor: '[redacted]' },
  });
}

export async function buildApp(options: AppOptions): Promise<Service> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const database = options.database ?? openDatabase(config);
  await migrateToLatest(database.db, database.dialect === 'postgres' ? config.databaseSchema : undefined);
  const limiterStore = config.rateLimitStore === 'postgres' && database.pool ? postgresStore(database.pool) : memoryStore;
  const deps: PipelineDeps = {
    database,
    config,
    clock: options.clock ?? systemClock,
    rateLimiter: options.rateLimiter ?? createRateLimiter(limiterStore),
    authThrottle: createAuthThrottle(limiterStore),
    registry: options.registry ?? buildRegistry(),
    logger,
    usage: createUsageRecorder(database.transaction, logger),
    // Every node enqueues (inside its calls' transactions); only a node with its worker on runs jobs.
    jobs: createQueueBackend({
      ...{ db: database.db, dialect: database.dialect, config, logger },
      clock: options.clock ?? systemClock,
    }),
  };

  // Typed as the default instance so route modules need not carry pino's logger type.
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: () => newId('req'),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  const metrics = createMetrics();

  // Which methods each path accepts, to tell 405 from 404.
  const knownRoutes = findMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!knownRoutes.hasRoute(method as HTTPMethod, route.url)) knownRoutes.on(method as HTTPMethod, route.url, () => {});
    }
  });

  // JSON bodies are parsed here but judged later: a malformed body fails at the pipeline's validate stage,
  // after authentication, as validation_failed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch {
      done(null, MALFORMED_JSON);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    request.log.info(
      { request_id: request.id, method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const allow = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => knownRoutes.find(m, path));
    const error = allow.length ? fail('method_not_allowed', { allow }) : fail('route_not_found');
    return sendError(reply, error, config.publicUrl);
  });

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, fail('payload_too_large'), config.publicUrl);
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, fail('unsupported_media_type'), config.publicUrl);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(
        reply,
        fail('validation_failed', { field_errors: [{ field: '(request)', message: error.message }] }),
        config.publicUrl,
      );
    }
    request.log.error({ err: error, request_id: request.id }, 'unhandled error');
    return sendError(reply, fail('internal_error'), config.publicUrl);
  });

  registerSystemRoutes(app, database, metrics);
  await registerDocsRoutes(app);
  const openApi = buildOpenApi(deps.registry, config);
  app.get('/openapi.json', async () => openApi);
  registerRestRoutes(app, deps);
  registerMcpEndpoint(app, deps);
  registerAdminRoutes(app, deps);
  await registerAssetContentRoutes(app, deps);
  // Start-up work of the modules (removing what a crash left behind) runs before any request is served.
  for (const module of deps.registry.modules) {
    await module.startup?.({ db: database.db, dialect: database.dialect, config, clock: deps.clock, logger });
  }
  app.addHook('onClose', async () => {
    await deps.usage.flush();
    if (!options.database) await database.close();
  });
  let worker: Worker | undefined;
  // onClose hooks run last-registered first: the worker stops before the database closes.
  app.addHook('onClose', async () => {
    await worker?.stop();
  });
  await app.ready();
  if (config.worker) worker = await startWorker(deps);
  return { app, deps, worker };
}
