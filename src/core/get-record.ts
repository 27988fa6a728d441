// get_record: one tool for the record lookups (GET <collection>/{id}) of every record type, so agents get
// them without a tool per type. Its scope depends on the type, so it is checked when the call executes.
import { Type } from '@sinclair/typebox';
import { defineOperation, type OperationDefinition } from './define-operation.ts';
import { fail } from './errors.ts';
import type { RecordType } from './record-types.ts';
import { Enum } from './resource-schema.ts';
import { Strict } from './schema.ts';

export function getRecordOperation(recordTypes: RecordType[]): OperationDefinition {
  const byType = new Map(recordTypes.map((t) => [t.type, t]));
  const types = [...byType.keys()];
  return defineOperation({
    name: 'get_record',
    module: 'workspace',
    // Any read scope lets a credential call it; the type's own read scope is checked in the handler.
    scopes: [...new Set(recordTypes.map((t) => t.readScope))],
    scopeMode: 'any',
    kind: 'read',
    extension: true,
    summary: 'Get one record of any type by ID',
    description:
      "Returns one record by type and ID (e.g. type deal, id deal_...): use it to follow an ID no other tool reads. Needs the type's read scope (crm:read for a deal) and its module enabled.",
    input: Strict({
      type: Enum(types),
      id: Type.String({ minLength: 1 }),
    }),
    rest: { method: 'GET', path: '/v1/records/{type}/{id}' },
    responseKey: 'record',
    response: Type.Object(
      {
        type: Type.String({ description: 'The record type asked for.', examples: ['contact'] }),
        record: Type.Object(
          { id: Type.String({ examples: ['con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'] }) },
          {
            additionalProperties: true,
            description: "The record as its type's other tools return it (the resource schema of that type).",
          },
        ),
      },
      { additionalProperties: false },
    ),
    handler: async (ctx, input) => {
      const recordType = byType.get(input.type)!;
      if (!ctx.enabledModule(recordType.module)) {
        throw fail('module_not_enabled', {
          message: `The ${recordType.module} module is not enabled for this workspace.`,
        });
      }
      if (!ctx.scopes.has(recordType.readScope)) {
        throw fail('missing_required_scope', {
          required_scope: recordType.readScope,
          message: `Reading a ${recordType.type} requires the scope ${recordType.readScope}.`,
        });
      }
      return { body: { type: recordType.type, record: await ctx.requireRecord(recordType.type, input.id) } };
    },
  });
}
