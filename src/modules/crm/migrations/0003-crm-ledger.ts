import type { Kysely } from 'kysely';
import { base, references, timestamps } from '../../../db/migration-schema.ts';

// CRM and ledger: leads, deal stages, deals, invoices, payments, accounting, notes. Every key and unique
// constraint starts with workspace_id; references are composite (workspace_id, id) foreign keys.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deal_stages')
    .$call(base)
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('probability', 'integer')
    .addColumn('color', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('deal_stages_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('deal_stages_key_unique', ['workspace_id', 'key'])
    .execute();
  await db.schema
    .createIndex('deal_stages_position')
    .on('deal_stages')
    .columns(['workspace_id', 'position', 'id'])
    .execute();

  await db.schema
    .createTable('deals')
    .$call(base)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('stage_key', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text')
    .addColumn('contact_id', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('closed_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('deals_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'deals_company_fk', 'company_id', 'companies'))
    .$call((t) => references(t, 'deals_contact_fk', 'contact_id', 'contacts'))
    .execute();
  // Covers the summary's open deals by currency (closed_at is null) without touching the table.
  await db.schema
    .createIndex('deals_open_value')
    .on('deals')
    .columns(['workspace_id', 'closed_at', 'currency', 'amount_cents'])
    .execute();

  await db.schema
    .createTable('leads')
    .$call(base)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('company_name', 'text')
    .addColumn('title', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('score', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('conversion_reason', 'text')
    .addColumn('converted_contact_id', 'text')
    .addColumn('converted_company_id', 'text')
    .addColumn('converted_deal_id', 'text')
    .addColumn('converted_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('leads_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'leads_contact_fk', 'converted_contact_id', 'contacts'))
    .$call((t) => references(t, 'leads_company_fk', 'converted_company_id', 'companies'))
    .$call((t) => references(t, 'leads_deal_fk', 'converted_deal_id', 'deals'))
    .execute();
  await db.schema.createIndex('leads_status').on('leads').columns(['workspace_id', 'status', 'id']).execute();
  await db.schema.createIndex('leads_source').on('leads').columns(['workspace_id', 'source', 'id']).execute();

  await db.schema
    .createTable('lead_custom_fields')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value_prefix', 'text', (c) => c.notNull())
    .addColumn('value_text', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lead_custom_fields_pk', ['workspace_id', 'lead_id', 'key'])
    .addForeignKeyConstraint('lead_custom_fields_lead_fk', ['workspace_id', 'lead_id'], 'leads', [
      'workspace_id',
      'id',
    ])
    .execute();
  // A bounded prefix keeps index entries small (PostgreSQL caps their size); value_text decides equality.
  await db.schema
    .createIndex('lead_custom_fields_value')
    .on('lead_custom_fields')
    .columns(['workspace_id', 'key', 'value_prefix', 'lead_id'])
    .execute();

  await db.schema
    .createTable('invoices')
    .$call(base)
    .addColumn('invoice_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text')
    .addColumn('contact_id', 'text')
    .addColumn('deal_id', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text')
    .addColumn('line_items', 'text', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .addColumn('amount_paid_cents', 'bigint', (c) => c.notNull())
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('paid_at', 'text')
    .addColumn('voided_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('invoices_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('invoices_number_unique', ['workspace_id', 'invoice_number'])
    .$call((t) => references(t, 'invoices_company_fk', 'company_id', 'companies'))
    .$call((t) => references(t, 'invoices_contact_fk', 'contact_id', 'contacts'))
    .$call((t) => references(t, 'invoices_deal_fk', 'deal_id', 'deals'))
    .execute();
  for (const column of ['status', 'company_id', 'contact_id', 'deal_id']) {
    await db.schema
      .createIndex(`invoices_${column}`)
      .on('invoices')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }

  await db.schema
    .createTable('payments')
    .$call(base)
    .addColumn('invoice_id', 'text')
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text', (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('provider_reference_id', 'text')
    .addColumn('reference_key', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('payments_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('payments_reference_unique', ['workspace_id', 'reference_key'])
    .$call((t) => references(t, 'payments_invoice_fk', 'invoice_id', 'invoices'))
    .execute();
  await db.schema
    .createIndex('payments_invoice')
    .on('payments')
    .columns(['workspace_id', 'invoice_id', 'id'])
    .execute();

  await db.schema
    .createTable('accounting_accounts')
    .$call(base)
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .$call(timestamps)
    .addPrimaryKeyConstraint('accounting_accounts_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('accounting_accounts_code_unique', ['workspace_id', 'code'])
    .execute();
  await db.schema
    .createIndex('accounting_accounts_type')
    .on('accounting_accounts')
    .columns(['workspace_id', 'type', 'id'])
    .execute();

  await db.schema
    .createTable('journal_entries')
    .$call(base)
    .addColumn('entry_number', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('posted_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('journal_entries_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('journal_entries_number_unique', ['workspace_id', 'entry_number'])
    .execute();
  await db.schema
    .createIndex('journal_entries_status')
    .on('journal_entries')
    .columns(['workspace_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('notes')
    .$call(base)
    .addColumn('title', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('company_id', 'text')
    .addColumn('deal_id', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('author_type', 'text', (c) => c.notNull())
    .addColumn('author_credential_id', 'text')
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .$call(timestamps)
    .addPrimaryKeyConstraint('notes_pk', ['workspace_id', 'id'])
    .$call((t) => references(t, 'notes_contact_fk', 'contact_id', 'contacts'))
    .$call((t) => references(t, 'notes_company_fk', 'company_id', 'companies'))
    .$call((t) => references(t, 'notes_deal_fk', 'deal_id', 'deals'))
    .execute();
  await db.schema
    .createIndex('notes_live')
    .on('notes')
    .columns(['workspace_id', 'archived_at', 'id'])
    .execute();
  for (const column of ['contact_id', 'company_id', 'deal_id']) {
    await db.schema
      .createIndex(`notes_${column}`)
      .on('notes')
      .columns(['workspace_id', column, 'archived_at', 'id'])
      .execute();
  }
}
