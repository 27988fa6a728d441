import { bootstrap, firstStartMessage } from './admin/bootstrap.ts';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { systemClock } from './core/clock.ts';
import { sweepExpiredKeys } from './core/idempotency.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { buildConsole } from './surfaces/console/console-build.ts';

const SHUTDOWN_GRACE_MS = 10_000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Starts the service: migrations, first-start bootstrap (a wrong WOS_ADMIN_TOKEN stops the node before it
 * runs any job or takes any request), listen, and a graceful stop on SIGTERM/SIGINT.
 */
export async function serve(config: Config): Promise<void> {
  const database = openDatabase(config);
  let first: Awaited<ReturnType<typeof bootstrap>>;
  try {
    await migrateToLatest(database.db, database.dialect === 'postgres' ? config.databaseSchema : undefined);
    first = await bootstrap(database.db, config, systemClock);
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  const { app, deps } = await buildApp({ config, database });
  const message = firstStartMessage(first, config);
  if (message) process.stdout.write(message);

  const sweep = setInterval(() => {
    sweepExpiredKeys(deps.database.db, deps.clock.now(), { system: true }).catch((err) =>
      deps.logger.error({ err }, 'idempotency key sweep failed'),
    );
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  await app.listen({ port: config.port, host: config.host });
  // The console is bundled now (in memory, about a second), so its first visitor does not wait for it.
  buildConsole().catch((err) => deps.logger.error({ err }, 'console build failed; /console will retry'));
  deps.logger.info(
    { database: deps.database.dialect, location: deps.database.location },
    `wos listening: REST ${config.publicUrl}/v1, MCP ${config.publicUrl}/mcp, docs ${config.publicUrl}/docs, console ${config.publicUrl}/console`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'stopping: finishing in-flight requests');
    clearInterval(sweep);
    const force = setTimeout(() => {
      deps.logger.warn('in-flight requests did not finish in 10 s; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    await app.close(); // stops accepting, waits for in-flight requests and stops the worker (onClose)
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
