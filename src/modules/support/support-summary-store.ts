import type { Kysely } from 'kysely';
import { counterSum } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';
import { slaBreachedAt } from './sla.ts';
import { UNRESOLVED } from './support-store.ts';

/**
 * get_workspace_summary's support section in one query: open tickets from the record counters; the SLA
 * breaches depend on the time, so they are counted over the covering SLA index, unresolved tickets only
 * (resolved and closed ones, most of a desk's history, are never read).
 */
export async function supportCounts(db: Kysely<DB>, workspaceId: string, now: string) {
  const row = await db
    .selectNoFrom((eb) => [
      counterSum(eb, workspaceId, 'support_tickets', UNRESOLVED).as('open_tickets'),
      eb
        .selectFrom('support_tickets')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('status', 'in', UNRESOLVED)
        .where(slaBreachedAt(now))
        .as('sla_breached'),
    ])
    .executeTakeFirstOrThrow();
  return { open_tickets: Number(row.open_tickets), sla_breached: Number(row.sla_breached) };
}
