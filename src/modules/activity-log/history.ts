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
    'Returns the audit trail of one record, newest first: who changed it (actor and credential), which ' +
    'action, which fields (names only, not previous values), from which surface, when, and the request_id. ' +
    'History outlives the record, so archived records still read. No record lookup is made: an empty list ' +
    'means nothing was recorded for that target_type and target_id (check both if you expected entries).',
  input: Strict({
    target_type: Type.String({
      minLength: 1,
      description:
        'Record type as recorded in the audit trail: contact, company, task, activity, deal, note, ...',
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
