import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { type FieldError, fail, validationFailed } from '../../core/errors.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { updateRecord } from '../../core/record-update.ts';
import { Enum, exampleId } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { entryNumberTaken, listJournalEntries, missingAccounts } from './accounting-store.ts';
import { idInput } from './crm-shared.ts';
import { entryStatuses, type JournalLine, journalEntryRecord } from './ledger-records.ts';

type LineInput = { account_id: string; debit_cents?: number; credit_cents?: number };

const normalize = (lines: LineInput[]): JournalLine[] =>
  lines.map((l) => ({
    account_id: l.account_id,
    debit_cents: l.debit_cents ?? 0,
    credit_cents: l.credit_cents ?? 0,
  }));

/** Checks a set of lines (one side each, balanced, accounts exist) and returns them normalized with the total. */
async function checkLines(ctx: OperationContext, lines: LineInput[]) {
  const normalized = normalize(lines);
  const oneSided: FieldError[] = [];
  normalized.forEach((l, i) => {
    if (l.debit_cents > 0 === l.credit_cents > 0) {
      oneSided.push({
        field: `lines[${i}]`,
        message: 'needs exactly one of debit_cents or credit_cents above 0',
      });
    }
  });
  if (oneSided.length) throw validationFailed(oneSided);
  const debits = normalized.reduce((sum, l) => sum + l.debit_cents, 0);
  const credits = normalized.reduce((sum, l) => sum + l.credit_cents, 0);
  if (debits !== credits) {
    throw validationFailed(
      [{ field: 'lines', message: `debits (${debits} cents) and credits (${credits} cents) must be equal` }],
      `The entry is unbalanced: debits total ${debits} cents, credits total ${credits} cents.`,
    );
  }
  if (!Number.isSafeInteger(debits))
    throw validationFailed([{ field: 'lines', message: 'the entry total is too large' }]);
  const missing = await missingAccounts(
    ctx.db,
    ctx.workspaceId,
    normalized.map((l) => l.account_id),
  );
  if (missing.length) {
    throw fail('resource_not_found', {
      message: `The accounting account ${missing[0]} does not exist in this workspace.`,
    });
  }
  return { lines: normalized, total: debits };
}

const numberTaken = (entryNumber: string) =>
  `entry number "${entryNumber}" is already used in this workspace`;

async function checkEntryNumber(ctx: OperationContext, entryNumber: string, exceptId?: string) {
  const message = numberTaken(entryNumber);
  if (await entryNumberTaken(ctx.db, ctx.workspaceId, entryNumber, exceptId)) {
    throw validationFailed([{ field: 'entry_number', message }]);
  }
  return message;
}

export const createJournalEntry = defineOperation({
  name: 'create_journal_entry',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  example: {
    memo: 'November subscription revenue',
    lines: [
      { account_id: exampleId('acct'), debit_cents: 125000 },
      { account_id: exampleId('acct'), credit_cents: 125000 },
    ],
  },
  creates: 'journal_entry',
  summary: 'Create a journal entry',
  description:
    'Records a double-entry journal entry on existing accounts; unbalanced lines fail (validation_failed on lines, naming both totals) and nothing is stored. status draft (default, editable) or posted (final). entry_number is unique. Emits journal_entry.created, plus journal_entry.posted when created posted.',
  input: Strict(journalEntryRecord.createInput),
  rest: { method: 'POST', path: '/v1/accounting/journal-entries' },
  responseKey: 'journal_entry',
  handler: async (ctx, input) => {
    const { lines, total } = await checkLines(ctx, input.lines);
    const duplicate = input.entry_number ? await checkEntryNumber(ctx, input.entry_number) : '';
    const status = input.status ?? 'draft';
    const row = journalEntryRecord.row(ctx, {
      ...input,
      status,
      lines,
      total_cents: total,
      posted_at: status === 'posted' ? ctx.now : null,
    });
    const entry = await uniquely(() => journalEntryRecord.insert(ctx.db, row), 'entry_number', duplicate);
    ctx.audit({ targetType: 'journal_entry', targetId: entry.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'journal_entry.created', targetType: 'journal_entry', targetId: entry.id, data: entry });
    if (status === 'posted') {
      ctx.emit({
        name: 'journal_entry.posted',
        targetType: 'journal_entry',
        targetId: entry.id,
        data: entry,
      });
    }
    return { body: { journal_entry: entry }, createdId: entry.id };
  },
});

export const listJournalEntriesOperation = defineOperation({
  name: 'list_journal_entries',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'List journal entries',
  description: 'Lists journal entries with their lines, newest first; query matches memo and entry_number.',
  input: Strict({
    status: Type.Optional(Enum(entryStatuses)),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/accounting/journal-entries' },
  heavy: hasTextQuery,
  responseKey: 'journal_entries',
  handler: async (ctx, input) => {
    const page = await listJournalEntries(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_journal_entries', input),
    );
    return { body: listBody('journal_entries', page) };
  },
});

export const updateJournalEntry = defineOperation({
  name: 'update_journal_entry',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'update',
  extension: true,
  summary: 'Edit or post a draft journal entry',
  description:
    "Changes a draft entry (lines follow create_journal_entry's rules) and/or posts it (status posted). A posted entry cannot change (validation_failed): correct it with a reversing entry. Emits journal_entry.updated and/or journal_entry.posted.",
  input: Strict({ journal_entry_id: idInput(), ...journalEntryRecord.patchInput }),
  rest: { method: 'PATCH', path: '/v1/accounting/journal-entries/{journal_entry_id}' },
  responseKey: 'journal_entry',
  handler: async (ctx, input) => {
    const patch = { ...input, lines: input.lines && normalize(input.lines) };
    const { record: entry, changed } = await updateRecord(
      ctx,
      journalEntryRecord,
      input.journal_entry_id,
      patch,
      {
        apply: async ({ row, next, changed }) => {
          // Nothing of a posted entry changes: only a request restating its current state succeeds.
          if (row.status === 'posted' && changed.length) {
            throw validationFailed([
              {
                field: 'journal_entry_id',
                message: 'is posted; a posted entry cannot be changed (record a reversing entry)',
              },
            ]);
          }
          if (changed.includes('lines')) next.total_cents = (await checkLines(ctx, input.lines!)).total;
          if (changed.includes('status')) next.posted_at = ctx.now;
          if (changed.includes('entry_number')) await checkEntryNumber(ctx, next.entry_number!, row.id);
        },
        unique: (next) =>
          next.entry_number ? { field: 'entry_number', message: numberTaken(next.entry_number) } : undefined,
      },
    );
    if (changed.some((f) => f !== 'status')) {
      ctx.emit({
        name: 'journal_entry.updated',
        targetType: 'journal_entry',
        targetId: entry.id,
        data: entry,
      });
    }
    if (changed.includes('status')) {
      ctx.emit({
        name: 'journal_entry.posted',
        targetType: 'journal_entry',
        targetId: entry.id,
        data: entry,
      });
    }
    return { body: { journal_entry: entry } };
  },
});
