import type { Kysely } from 'kysely';
import type { KeysetColumn, PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Lead } from './crm-schemas.ts';
import { parseFields } from './crm-shared.ts';
import type { LeadSource, LeadStatus, LeadsTable } from './crm-tables.ts';

const PREFIX_LENGTH = 100;
/** Newest first; the custom-field filter joins another table, so the ID is qualified. */
const LEAD_ORDER: KeysetColumn[] = [{ column: 'leads.id', direction: 'desc', type: 'string' }];

export function toLead(row: LeadsTable): Lead {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    company_name: row.company_name,
    title: row.title,
    source: row.source,
    score: row.score,
    status: row.status,
    custom_fields: parseFields(row.custom_fields),
    conversion_reason: row.conversion_reason,
    converted_contact_id: row.converted_contact_id,
    converted_company_id: row.converted_company_id,
    converted_deal_id: row.converted_deal_id,
    converted_at: row.converted_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The string form a custom field value is compared by: "42", "true", "gold". */
export function fieldText(value: string | number | boolean): string {
  return String(value);
}

export async function insertLead(db: Kysely<DB>, row: LeadsTable) {
  await db.insertInto('leads').values(row).execute();
  const fields = Object.entries(parseFields(row.custom_fields)).filter(([, v]) => v !== null) as [
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
  return toLead(row);
}

export function findLead(db: Kysely<DB>, workspaceId: string, leadId: string) {
  return findRow(db, 'leads', workspaceId, leadId);
}

export async function updateLeadRow(
  db: Kysely<DB>,
  workspaceId: string,
  leadId: string,
  changes: Partial<LeadsTable>,
) {
  await db
    .updateTable('leads')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', leadId)
    .execute();
}

export interface LeadFilters {
  query?: string;
  status?: LeadStatus;
  source?: LeadSource;
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
    { table: 'leads', workspaceId, text: filters.query },
    LEAD_ORDER,
  );
  return { ...result, items: result.items.map(toLead) };
}

export type LeadResource = ReturnType<typeof toLead>;
