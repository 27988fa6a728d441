import { Type } from '@sinclair/typebox';
import { listHistory } from '../../core/audit.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { AuditEventSchema } from '../../core/platform-schemas.ts';
import { pageBody } from '../../core/response-schema.ts';
import { Strict } from '../../core/schema.ts';

export const getRecordHistory = defineOperation({
  name: 'get_record_history',
  module: 'activity_log',
  scopes: ['audit:read'],
  kind: 'read',
  summary: "Read a record's audit history",
  description:
    "Returns a record's audit trail, newest first: actor, credential, action, changed field names (not values), surface, time, request_id. It outlives the record. No lookup is made: an empty list means nothing was recorded for that target_type and target_id.",
  input: Strict({
    target_type: Type.String({
      minLength: 1,
      description: 'As audited: contact, company, task, activity, deal, note, ...',
    }),
    target_id: Type.String({ minLength: 1 }),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/history' },
  responseKey: 'entries',
  response: pageBody('entries', AuditEventSchema),
  handler: async (ctx, input) => {
    const page = await listHistory(
      ctx.db,
      ctx.workspaceId,
      input.target_type,
      input.target_id,
      pageRequest('get_record_history', input),
    );
    return { body: listBody('entries', page) };
  },
});
