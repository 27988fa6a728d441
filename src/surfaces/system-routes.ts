import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import { type Database, isReachable } from '../db/database.ts';

export interface Metrics {
  registry: client.Registry;
  requests: client.Counter<'method' | 'route' | 'status'>;
  duration: client.Histogram<'method' | 'route'>;
}

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new client.Counter({
      name: 'wos_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new client.Histogram({
      name: 'wos_http_request_duration_seconds',
      help: 'HTTP request duration by method and route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

/** Liveness, readiness (the database answers) and Prometheus metrics. */
export function registerSystemRoutes(app: FastifyInstance, database: Database, metrics: Metrics): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ok = await isReachable(database);
    return reply
      .code(ok ? 200 : 503)
      .send({ status: ok ? 'ready' : 'database unreachable', database: database.dialect });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
