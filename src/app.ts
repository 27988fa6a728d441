// Builds the Fastify application without listening, so tests can inject requests or listen themselves.
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import findMyWay, { type HTTPMethod } from 'find-my-way';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { createAuthThrottle } from './core/auth-throttle.ts';
import type { PipelineDeps } from './core/call.ts';
import { type Clock, systemClock } from './core/clock.ts';
import { fail, ServiceError, validationFailed } from './core/errors.ts';
import { newId } from './core/ids.ts';
import { type BodyNestingConfig, readJsonBody } from './core/json-body.ts';
import { outboxMetrics } from './core/outbox-metrics.ts';
import { createOutboxRelay } from './core/outbox-relay.ts';
import { createPrincipalCache, createSqlitePrincipalCache } from './core/principal-cache.ts';
import {
  createRateLimiter,
  memoryStore,
  openLimiterPool,
  postgresStore,
  type RateLimiter,
} from './core/rate-limit.ts';
import { createUsageRecorder } from './core/usage-recorder.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { fastifyTrustProxy, perNodeFilesWarning } from './deployment-config.ts';
import { createQueueBackend, startWorker, type Worker } from './jobs/worker.ts';
import { closeStorage } from './modules/assets/storage/configured.ts';
import { buildRegistry, type Registry } from './registry.ts';
import { registerAdminRoutes } from './surfaces/admin/admin-routes.ts';
import { registerAssetContentRoutes } from './surfaces/assets/asset-content-routes.ts';
import { registerConsoleRoutes } from './surfaces/console/console-routes.ts';
import { registerDocsRoutes } from './surfaces/docs/docs-routes.ts';
import { clientErrorHandler, sendError } from './surfaces/http-errors.ts';
import { registerMcpEndpoint } from './surfaces/mcp/mcp-endpoint.ts';
import { buildOpenApi } from './surfaces/openapi/openapi.ts';
import { registerRestRoutes } from './surfaces/rest/rest-routes.ts';
import { registerSdkRoutes } from './surfaces/sdk/sdk-routes.ts';
import { createMetrics, registerSystemRoutes } from './surfaces/system-routes.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Path parameters (IDs) up to this length are routed and looked up; longer ones name no resource. */
export const MAX_PARAM_LENGTH = 255;

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
    // Tokens travel in Authorization headers; they must never reach a log line (nor a storage secret).
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.secretAccessKey'],
      censor: '[redacted]',
    },
  });
}

export async function buildApp(options: AppOptions): Promise<Service> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const database = options.database ?? openDatabase(config);
  await migrateToLatest(database.db, database.dialect === 'postgres' ? config.databaseSchema : undefined);
  const filesWarning = perNodeFilesWarning(config, database.dialect);
  if (filesWarning) logger.warn(filesWarning);
  const limiterPool =
    config.rateLimitStore === 'postgres' && config.databaseUrl
      ? openLimiterPool(config.databaseUrl, config.databaseSchema)
      : undefined;
  const limiterStore = limiterPool ? postgresStore(limiterPool) : memoryStore;
  const cacheMs = config.credentialCacheSeconds * 1000;
  const principals =
    cacheMs <= 0
      ? undefined
      : database.dataVersion
        ? createSqlitePrincipalCache(cacheMs, database.dataVersion)
        : config.databaseUrl
          ? createPrincipalCache(config.databaseUrl, cacheMs, logger)
          : undefined;
  const metrics = createMetrics();
  const clock = options.clock ?? systemClock;
  const registry = options.registry ?? buildRegistry();
  const deps: PipelineDeps = {
    database,
    config,
    clock,
    // Shared counts are taken in leases: one round trip for many calls (rate-limit.ts).
    rateLimiter:
      options.rateLimiter ?? createRateLimiter(limiterStore, { leases: limiterPool !== undefined }),
    authThrottle: createAuthThrottle(limiterStore),
    registry,
    logger,
    usage: createUsageRecorder(database.transaction, logger),
    // Every node enqueues (inside its calls' transactions); only a node with its worker on runs jobs.
    jobs: createQueueBackend({ db: database.db, dialect: database.dialect, config, clock, logger }),
    principals,
    relay: createOutboxRelay({
      database,
      consumers: registry.eventConsumers,
      clock,
      logger,
      giveUpAfterMs: config.outboxGiveUpMinutes * 60_000,
      observeDelay: outboxMetrics(metrics.registry, database.db, clock),
    }),
  };

  // Typed as the default instance so route modules need not carry pino's logger type.
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: () => newId('req'),
    bodyLimit: BODY_LIMIT_BYTES,
    // WOS_TRUST_PROXY: request.ip (the failed-authentication throttle's key) is the client a trusted proxy names.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout: config.requestTimeoutMs,
    // Node checks timeouts every 30 s and gives the head 60 s by default: scale both to the request timeout.
    http: config.requestTimeoutMs
      ? {
          headersTimeout: Math.min(60_000, config.requestTimeoutMs),
          connectionsCheckingInterval: Math.min(
            30_000,
            Math.max(100, Math.floor(config.requestTimeoutMs / 4)),
          ),
        }
      : {},
    clientErrorHandler: clientErrorHandler(config.publicUrl, logger, (url) => unrouted(url)),
    // A malformed percent-encoding or an over-long parameter, found while routing.
    frameworkErrors: (error, _request, reply) => {
      const mapped =
        error.code === 'FST_ERR_BAD_URL'
          ? validationFailed(
              [{ field: '(path)', message: 'is not valid percent-encoding' }],
              'The request path is malformed.',
            )
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? fail('resource_not_found', {
                message: `No resource has an ID longer than ${MAX_PARAM_LENGTH} characters.`,
              })
            : fail('internal_error');
      return sendError(reply, mapped, config.publicUrl);
    },
  }) as unknown as FastifyInstance;

  // Which methods each path accepts, to tell 405 from 404.
  const knownRoutes = findMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!knownRoutes.hasRoute(method as HTTPMethod, route.url))
        knownRoutes.on(method as HTTPMethod, route.url, () => {});
    }
  });

  // JSON bodies are parsed here but judged later: a malformed body, or one nested deeper than its route
  // allows, fails at the pipeline's validate stage, after authentication, as validation_failed.
  app.removeAllContentTypeParsers();
  const parseJson = (request: FastifyRequest, text: string) =>
    readJsonBody(text, (request.routeOptions.config as BodyNestingConfig).bodyNesting);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) =>
    done(null, parseJson(request, text as string)),
  );

  // JSON sent as text/plain (navigator.sendBeacon cannot choose its type) is read on browser routes only.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, text, done) => {
    if (!(request.routeOptions.config as { textPlainJson?: boolean }).textPlainJson) {
      return done(fail('unsupported_media_type'), undefined);
    }
    done(null, parseJson(request, text as string));
  });

  // llhttp decodes chunked bodies only; any other transfer coding would hand the parser undecoded bytes.
  app.addHook('onRequest', async (request) => {
    const coding = request.headers['transfer-encoding'];
    if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
      throw validationFailed(
        [
          {
            field: '(request)',
            message: 'Transfer-Encoding must be chunked alone: no other transfer coding is supported',
          },
        ],
        'The request uses a transfer coding this service does not support.',
      );
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
    // request.log already carries request_id (requestIdLogLabel).
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  // An unrouted request: 405 with Allow on a known path (any other method, QUERY and PROPFIND too), else 404.
  const unrouted = (url: string) => {
    const path = url.split('?')[0]!;
    const allow = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) =>
      knownRoutes.find(m, path),
    );
    return allow.length ? fail('method_not_allowed', { allow }) : fail('route_not_found');
  };
  // WOS_CORS_ORIGINS: browsers at these origins may call /v1 (the ingest route grants its sites' origins
  // itself). Without it no route but ingest sends CORS headers.
  if (config.corsOrigins.length) {
    app.addHook('onRequest', async (request, reply) => {
      // The entries are stored as browsers serialize origins (originList), so only such a header equals one.
      const origin = request.headers.origin;
      if (!origin || !config.corsOrigins.includes(origin) || !request.url.startsWith('/v1/')) return;
      reply.headers({
        'access-control-allow-origin': origin,
        vary: 'Origin',
        'access-control-expose-headers': 'x-request-id, retry-after, idempotent-replayed',
      });
      if (request.method !== 'OPTIONS' || !request.is404) return;
      return reply
        .code(204)
        .headers({
          'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE',
          'access-control-allow-headers':
            'authorization, content-type, x-wos-workspace-id, x-service-workspace-id',
          'access-control-max-age': '600',
        })
        .send();
    });
  }
  // Answered before the body is read: Fastify would judge the body of a method it knows first (a QUERY
  // without Content-Type is its own 400, an unknown media type 415), then call the not-found handler.
  app.addHook('onRequest', async (request) => {
    if (request.is404) throw unrouted(request.url);
  });
  app.setNotFoundHandler(async (request, reply) => sendError(reply, unrouted(request.url), config.publicUrl));

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof ServiceError) return sendError(reply, error, config.publicUrl);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendError(reply, fail('payload_too_large'), config.publicUrl);
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
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, fail('internal_error'), config.publicUrl);
  });

  registerSystemRoutes(app, database, metrics);
  await registerDocsRoutes(app);
  const openApi = buildOpenApi(deps.registry, config);
  app.get('/openapi.json', async () => openApi);
  registerRestRoutes(app, deps);
  registerMcpEndpoint(app, deps);
  registerAdminRoutes(app, deps);
  registerSdkRoutes(app);
  registerConsoleRoutes(app);
  await registerAssetContentRoutes(app, deps);
  // Start-up work of the modules (removing what a crash left behind) runs before any request is served.
  for (const module of deps.registry.modules) {
    await module.startup?.({ db: database.db, dialect: database.dialect, config, clock: deps.clock, logger });
  }
  app.addHook('onClose', async () => {
    await deps.usage.flush();
    await limiterPool?.end();
    await principals?.close();
    closeStorage(config);
    if (!options.database) await database.close();
  });
  let worker: Worker | undefined;
  // onClose hooks run last-registered first: the worker stops before the database closes.
  app.addHook('onClose', async () => {
    await worker?.stop();
    await deps.relay.stop();
  });
  await app.ready();
  if (config.worker) worker = await startWorker(deps);
  return { app, deps, worker };
}
