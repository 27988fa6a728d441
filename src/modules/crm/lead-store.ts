import type { Kysely } from 'kysely';
import type { KeysetColumn, PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import { type LeadRow, leadRecord, type leadSources, type leadStatuses } from './crm-records.ts';

const PREFIX_LENGTH = 100;
/** Newest first; the custom-field filter joins another table, so the ID is qualified. */
const LEAD_ORDER: KeysetColumn[] = [{ column: 'leads.id', direction: 'desc', type: 'string' }];

/** The string form a custom field value is compared by: "42", "true", "gold". */
export function fieldText(value: string | number | boolean): string {
  return String(value);
}

/** Inserts a lead and the index rows of its custom fields (list_leads filters by them). */
export async function insertLead(db: Kysely<DB>, row: LeadRow) {
  const lead = await leadRecord.insert(db, row);
  const fields = Object.entries(lead.custom_fields).filter(([, v]) => v !== null) as [
    string,
    string | number | boolean,
  ][];
  if (fields.length) {
    await db
      .insertInto('lead_custom_fields')
      .values(
        fields.map(([key, value]) => ({
          workspace_id: row.workspace_id,
          lead_id: row.id,
          key,
          value_prefix: fieldText(value).slice(0, PREFIX_LENGTH),
          value_text: fieldText(value),
        })),
      )
      .execute();
  }
  return lead;
}

export function findLead(db: Kysely<DB>, workspaceId: string, leadId: string) {
  return findRow(db, 'leads', workspaceId, leadId);
}

/** Sets columns of a lead (its conversion). */
export function updateLeadRow(
  db: Kysely<DB>,
  workspaceId: string,
  leadId: string,
  changes: Partial<LeadRow>,
) {
  return updateRow(db, 'leads', workspaceId, leadId, changes);
}

export interface LeadFilters {
  query?: string;
  status?: (typeof leadStatuses)[number];
  source?: (typeof leadSources)[number];
  custom_field_key?: string;
  custom_field_value?: string;
}

export async function listLeads(
  db: Kysely<DB>,
  workspaceId: string,
  filters: LeadFilters,
  page: PageRequest,
) {
  let query = db.selectFrom('leads').selectAll('leads').where('leads.workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.source) query = query.where('source', '=', filters.source);
  const { custom_field_key: key, custom_field_value: value } = filters;
  if (key !== undefined) {
    query = query.where(({ exists, selectFrom }) => {
      let match = selectFrom('lead_custom_fields as f')
        .select('f.lead_id')
        .whereRef('f.workspace_id', '=', 'leads.workspace_id')
        .whereRef('f.lead_id', '=', 'leads.id')
        .where('f.key', '=', key);
      if (value !== undefined) {
        match = match
          .where('f.value_prefix', '=', value.slice(0, PREFIX_LENGTH))
          .where('f.value_text', '=', value);
      }
      return exists(match);
    });
  }
  const result = await fetchSearchPage(
    db,
    query,
    page,
    { record: leadRecord, workspaceId, text: filters.query },
    LEAD_ORDER,
  );
  return { ...result, items: result.items.map(leadRecord.toRecord) };
}
