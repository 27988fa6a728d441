import { type Kysely, sql } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { findRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import { type InvoiceStatus, invoiceRecord } from './ledger-records.ts';

export function findInvoice(db: Kysely<DB>, workspaceId: string, invoiceId: string) {
  return findRow(db, 'invoices', workspaceId, invoiceId);
}

export async function invoiceNumberTaken(db: Kysely<DB>, workspaceId: string, invoiceNumber: string) {
  const row = await db
    .selectFrom('invoices')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('invoice_number', '=', invoiceNumber)
    .executeTakeFirst();
  return row !== undefined;
}

export interface InvoiceFilters {
  status?: InvoiceStatus;
  company_id?: string;
  contact_id?: string;
  deal_id?: string;
}

export async function listInvoices(
  db: Kysely<DB>,
  workspaceId: string,
  filters: InvoiceFilters,
  page: PageRequest,
) {
  let query = db.selectFrom('invoices').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.company_id) query = query.where('company_id', '=', filters.company_id);
  if (filters.contact_id) query = query.where('contact_id', '=', filters.contact_id);
  if (filters.deal_id) query = query.where('deal_id', '=', filters.deal_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(invoiceRecord.toRecord) };
}

export async function paymentWithReference(db: Kysely<DB>, workspaceId: string, referenceKey: string) {
  return db
    .selectFrom('payments')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('reference_key', '=', referenceKey)
    .executeTakeFirst();
}

/**
 * Adds a payment to its invoice: paid when it reaches the total, partially paid before. The update re-checks
 * the balance itself, so two concurrent payments can never take an invoice past its total. False when the
 * invoice is void or the amount exceeds its balance.
 */
export async function addPaymentToInvoice(
  db: Kysely<DB>,
  workspaceId: string,
  invoiceId: string,
  payment: { amount: number; paidAt: string; now: string },
): Promise<boolean> {
  const { amount, paidAt, now } = payment;
  const result = await db
    .updateTable('invoices')
    .set({
      amount_paid_cents: sql`amount_paid_cents + ${amount}`,
      status: sql`case when amount_paid_cents + ${amount} = total_cents then 'paid' else 'partially_paid' end`,
      paid_at: sql`case when amount_paid_cents + ${amount} = total_cents then ${paidAt} else paid_at end`,
      updated_at: now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invoiceId)
    .where('status', '!=', 'void')
    .where(sql<boolean>`amount_paid_cents + ${amount} <= total_cents`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
