import type { Kysely } from 'kysely';
import { readRecordCounters } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';

/**
 * The crm section of get_workspace_summary, from the record counters: contacts, companies and the open
 * deals (closed_at null) with their value per currency.
 */
export async function crmCounts(db: Kysely<DB>, workspaceId: string) {
  const c = await readRecordCounters(db, workspaceId, ['contacts', 'companies', 'open_deals']);
  return {
    contacts: c.contacts.total,
    companies: c.companies.total,
    open_deals: { count: c.open_deals.total, amount_cents_by_currency: c.open_deals.amountBy },
  };
}
