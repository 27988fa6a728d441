import { type Kysely, sql } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { findRow, insertRows } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Invoice, Payment } from './crm-schemas.ts';
import { parseFields } from './crm-shared.ts';
import type { InvoiceStatus, InvoicesTable, PaymentsTable } from './crm-tables.ts';

export interface LineItem {
  kind: string;
  name: string;
  unit_amount_cents: number;
  quantity: number;
}

export function toInvoice(row: InvoicesTable): Invoice {
  const items = JSON.parse(row.line_items) as LineItem[];
  const total = Number(row.total_cents);
  const paid = Number(row.amount_paid_cents);
  return {
    id: row.id,
    invoice_number: row.invoice_number,
    status: row.status,
    company_id: row.company_id,
    contact_id: row.contact_id,
    deal_id: row.deal_id,
    currency: row.currency,
    due_date: row.due_date,
    line_items: items.map((item) => ({ ...item, amount_cents: item.unit_amount_cents * item.quantity })),
    total_cents: total,
    amount_paid_cents: paid,
    balance_cents: row.status === 'void' ? 0 : total - paid,
    custom_fields: parseFields(row.custom_fields),
    sent_at: row.sent_at,
    paid_at: row.paid_at,
    voided_at: row.voided_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type InvoiceResource = ReturnType<typeof toInvoice>;

export function toPayment(row: PaymentsTable): Payment {
  return {
    id: row.id,
    invoice_id: row.invoice_id,
    amount_cents: Number(row.amount_cents),
    currency: row.currency,
    paid_at: row.paid_at,
    provider: row.provider,
    provider_reference_id: row.provider_reference_id,
    custom_fields: parseFields(row.custom_fields),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

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

export async function updateInvoiceRow(
  db: Kysely<DB>,
  workspaceId: string,
  invoiceId: string,
  changes: Partial<InvoicesTable>,
) {
  await db
    .updateTable('invoices')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invoiceId)
    .execute();
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
  return { ...result, items: result.items.map(toInvoice) };
}

export async function paymentWithReference(db: Kysely<DB>, workspaceId: string, referenceKey: string) {
  return db
    .selectFrom('payments')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('reference_key', '=', referenceKey)
    .executeTakeFirst();
}

export function insertInvoice(db: Kysely<DB>, row: InvoicesTable) {
  return insertRows(db, 'invoices', row);
}

export function insertPayment(db: Kysely<DB>, row: PaymentsTable) {
  return insertRows(db, 'payments', row);
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
