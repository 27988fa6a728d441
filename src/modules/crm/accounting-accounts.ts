import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { accountCodeTaken, listAccounts } from './accounting-store.ts';
import { accountingAccountRecord, accountTypes } from './ledger-records.ts';

export const createAccountingAccount = defineOperation({
  name: 'create_accounting_account',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'accounting_account',
  summary: 'Create an accounting account',
  description:
    'Adds an account to the chart of accounts; its code (e.g. 1000) is unique in the workspace. Journal entry lines post to accounts by ID. Emits accounting_account.created.',
  input: Strict(accountingAccountRecord.createInput),
  rest: { method: 'POST', path: '/v1/accounting/accounts' },
  responseKey: 'account',
  handler: async (ctx, input) => {
    const duplicate = `account code "${input.code}" is already used in this workspace`;
    if (await accountCodeTaken(ctx.db, ctx.workspaceId, input.code)) {
      throw validationFailed([{ field: 'code', message: duplicate }]);
    }
    const row = accountingAccountRecord.row(ctx, input);
    const account = await uniquely(() => accountingAccountRecord.insert(ctx.db, row), 'code', duplicate);
    ctx.audit({ targetType: 'accounting_account', targetId: account.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'accounting_account.created',
      targetType: 'accounting_account',
      targetId: account.id,
      data: account,
    });
    return { body: { account }, createdId: account.id };
  },
});

export const listAccountingAccounts = defineOperation({
  name: 'list_accounting_accounts',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'List accounting accounts',
  description: 'Lists the chart of accounts, newest first; query matches code, name and description.',
  input: Strict({
    type: Type.Optional(Enum(accountTypes)),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/accounting/accounts' },
  responseKey: 'accounts',
  handler: async (ctx, input) => {
    const page = await listAccounts(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_accounting_accounts', input),
    );
    return { body: listBody('accounts', page) };
  },
});
