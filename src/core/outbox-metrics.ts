// The outbox relay's figures in /metrics (src/core/outbox-relay.ts).
import type { Kysely } from 'kysely';
import client from 'prom-client';
import type { DB } from '../db/tables.ts';
import type { Clock } from './clock.ts';

/**
 * wos_outbox_failures: events consumers failed on, failing or given up (outbox-failures.ts).
 * wos_outbox_lag_seconds: the age of the oldest event not yet handed to every consumer (0 when none), read
 * from the database at each scrape, so it counts every node's backlog; and the histogram of the time from
 * an event's occurrence to its publication by this node's relay.
 */
export function outboxMetrics(
  registry: client.Registry,
  db: Kysely<DB>,
  clock: Clock,
): (seconds: number) => void {
  new client.Gauge({
    name: 'wos_outbox_lag_seconds',
    help: 'Age of the oldest outbox event not yet relayed to every consumer that wants it (0 when none)',
    registers: [registry],
    async collect() {
      const oldest = await db
        .selectFrom('outbox_events')
        .select('occurred_at')
        .where('published_at', 'is', null)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst()
        .catch(() => undefined);
      this.set(oldest ? Math.max(0, clock.now().getTime() - Date.parse(oldest.occurred_at)) / 1000 : 0);
    },
  });
  new client.Gauge({
    name: 'wos_outbox_failures',
    help:
      'Events an event consumer failed on: state="failing" (retried every relay pass), state="given_up" ' +
      '(given up after WOS_OUTBOX_GIVE_UP_MINUTES; listed at /admin/v1/outbox-failures until dismissed)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const rows = await db
        .selectFrom('outbox_failures')
        .select((eb) => [
          eb.fn.countAll<number>().as('all'),
          eb.fn.count<number>('gave_up_at').as('given_up'),
        ])
        .executeTakeFirst()
        .catch(() => undefined);
      const all = Number(rows?.all ?? 0);
      const givenUp = Number(rows?.given_up ?? 0);
      this.set({ state: 'failing' }, all - givenUp);
      this.set({ state: 'given_up' }, givenUp);
    },
  });
  const delay = new client.Histogram({
    name: 'wos_outbox_relay_delay_seconds',
    help: 'Time from an outbox event to its publication by the relay (every consumer that wants it has it)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [registry],
  });
  return (seconds) => delay.observe(seconds);
}
