import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { Strict } from '../../core/schema.ts';
import { addPaymentToInvoice, findInvoice, paymentWithReference } from './invoice-store.ts';
import { invoiceRecord, paymentRecord } from './ledger-records.ts';

/**
 * Applies a payment to its invoice in the same transaction. The update re-checks the balance itself, so
 * two concurrent payments can never take an invoice past its total.
 */
async function applyToInvoice(ctx: OperationContext, invoiceId: string, amount: number, paidAt: string) {
  if (!(await addPaymentToInvoice(ctx.db, ctx.workspaceId, invoiceId, { amount, paidAt, now: ctx.now }))) {
    throw validationFailed([{ field: 'amount_cents', message: 'exceeds the invoice balance' }]);
  }
  const row = await findInvoice(ctx.db, ctx.workspaceId, invoiceId);
  return invoiceRecord.toRecord(row!);
}

export const recordPayment = defineOperation({
  name: 'record_payment',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'payment',
  summary: 'Record a payment',
  description:
    'Records money received, against an invoice or (without invoice_id) unapplied. The invoice must not be void, currency must match it, amount_cents may not exceed its balance_cents; its amount_paid_cents and status (partially_paid, paid) move in the same transaction. Emits payment.recorded, and invoice.paid when fully paid.',
  input: Strict(paymentRecord.createInput),
  rest: { method: 'POST', path: '/v1/payments' },
  responseKey: 'payment',
  handler: async (ctx, input) => {
    const invoice = input.invoice_id
      ? await findInvoice(ctx.db, ctx.workspaceId, input.invoice_id)
      : undefined;
    if (input.invoice_id && !invoice) throw notFound('invoice');
    const currency = input.currency ?? invoice?.currency ?? 'USD';
    if (invoice) {
      if (invoice.status === 'void') {
        throw validationFailed([
          { field: 'invoice_id', message: 'the invoice is void; a void invoice takes no payments' },
        ]);
      }
      if (currency !== invoice.currency) {
        throw validationFailed([
          { field: 'currency', message: `must match the invoice currency ${invoice.currency}` },
        ]);
      }
      const balance = Number(invoice.total_cents) - Number(invoice.amount_paid_cents);
      if (input.amount_cents > balance) {
        throw validationFailed([
          {
            field: 'amount_cents',
            message: `exceeds the invoice balance of ${balance} cents ${invoice.currency}`,
          },
        ]);
      }
    }
    const referenceKey =
      input.provider_reference_id !== undefined
        ? JSON.stringify([input.provider ?? null, input.provider_reference_id])
        : null;
    const duplicate = `a payment with this provider_reference_id${input.provider ? ` from ${input.provider}` : ''} is already recorded`;
    if (referenceKey && (await paymentWithReference(ctx.db, ctx.workspaceId, referenceKey))) {
      throw validationFailed([{ field: 'provider_reference_id', message: duplicate }]);
    }
    const row = paymentRecord.row(ctx, {
      ...input,
      currency,
      paid_at: input.paid_at ?? ctx.now,
      reference_key: referenceKey,
    });
    const payment = await uniquely(
      () => paymentRecord.insert(ctx.db, row),
      'provider_reference_id',
      duplicate,
    );
    ctx.audit({ targetType: 'payment', targetId: payment.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'payment.recorded', targetType: 'payment', targetId: payment.id, data: payment });
    if (invoice) {
      const updated = await applyToInvoice(ctx, invoice.id, input.amount_cents, payment.paid_at);
      const changed = ['amount_paid_cents'];
      if (updated.status !== invoice.status) changed.push('status');
      if (updated.status === 'paid') changed.push('paid_at');
      ctx.audit({ targetType: 'invoice', targetId: invoice.id, action: 'update', changedFields: changed });
      if (updated.status === 'paid') {
        ctx.emit({ name: 'invoice.paid', targetType: 'invoice', targetId: invoice.id, data: updated });
      }
    }
    return { body: { payment }, createdId: payment.id };
  },
});
