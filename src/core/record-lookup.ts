import { Type } from '@sinclair/typebox';
import { defineOperation, type OperationDefinition } from './define-operation.ts';
import { notFound } from './errors.ts';
import { loadRecord, type RecordType } from './record-types.ts';
import { Strict } from './schema.ts';

/**
 * REST-only GET <collection>/{id}, generated for every record type. The path parameter is <type>_id unless
 * the resource's other routes already name it (PATCH /v1/support/tickets/{ticket_id}): one path, one name.
 */
export function recordLookupOperation(
  recordType: RecordType,
  idField = `${recordType.type}_id`,
): OperationDefinition {
  return defineOperation({
    name: `get_${recordType.type}`,
    module: recordType.module,
    scopes: [recordType.readScope],
    kind: 'read',
    mcp: false,
    summary: `Get one ${recordType.type.replace(/_/g, ' ')}`,
    description: `Returns one ${recordType.type} of this workspace by ID.`,
    input: Strict({ [idField]: Type.String({ minLength: 1 }) }),
    rest: { method: 'GET', path: `${recordType.collection}/{${idField}}` },
    responseKey: recordType.key,
    handler: async (ctx, input) => {
      const id = String(input[idField]);
      const record = await loadRecord(ctx.db, ctx.workspaceId, recordType, id, ctx.now, ctx.config.publicUrl);
      if (!record) throw notFound(recordType.type.replace(/_/g, ' '));
      return { body: { [recordType.key]: record } };
    },
  });
}
