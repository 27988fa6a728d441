import { Type } from '@sinclair/typebox';
import { auditEventsOfRequest } from '../../core/audit.ts';
import { callEventsOfRequest, requestRecord } from '../../core/call-events.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { RequestRecordSchema } from '../../core/platform-schemas.ts';
import { oneRecordBody } from '../../core/response-schema.ts';
import { Strict } from '../../core/schema.ts';

/** REST-only support lookup: everything this workspace recorded under one request ID. */
export const getRequest = defineOperation({
  name: 'get_request',
  module: 'workspace',
  scopes: ['audit:read'],
  kind: 'read',
  mcp: false,
  summary: 'Look up a request',
  description:
    'Returns what was recorded under a request_id of this workspace: its call event (which is also its ' +
    'usage event) and its audit events. Quote a request_id from any response or error.',
  input: Strict({ request_id: Type.String({ minLength: 1, maxLength: 64 }) }),
  rest: { method: 'GET', path: '/v1/requests/{request_id}' },
  responseKey: 'request',
  response: oneRecordBody('request', RequestRecordSchema),
  handler: async (ctx, input) => {
    await ctx.flushUsage();
    const [calls, audits] = await Promise.all([
      callEventsOfRequest(ctx.db, ctx.workspaceId, input.request_id),
      auditEventsOfRequest(ctx.db, ctx.workspaceId, input.request_id),
    ]);
    if (calls.length === 0 && audits.length === 0) throw notFound('request');
    return { body: { request: requestRecord(input.request_id, calls, audits) } };
  },
});
