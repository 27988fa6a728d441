// The one way a declared record is updated (docs/contract.md section 12): of the editable fields a patch
// sends, those whose value differs from the row are the changes; only they (plus whatever the operation
// derives from them, and updated_at) are written, and the audit event names them. Sending the current
// values writes nothing, emits nothing and audits no field.

import { findRow, updateRow } from '../db/find-row.ts';
import { diffFields, mergedJson, requireSomeField } from './changes.ts';
import type { OperationContext } from './context.ts';
import { uniquely } from './db-errors.ts';
import type { AnyRecord, PatchOf, RecordOf, RowOf } from './define-record.ts';
import { notFound } from './errors.ts';

export interface RecordChange<R extends AnyRecord> {
  /** The row as it was. */
  row: RowOf<R>;
  /** The row as it will be written: the sent changes applied; the operation may set derived columns. */
  next: RowOf<R>;
  /** The editable fields whose value changed, in the record's order. */
  changed: string[];
}

export interface UpdateOptions<R extends AnyRecord> {
  /** The editable fields this operation changes (default: all of the record's). */
  fields?: readonly string[];
  /** The fields requireSomeField asks for (default: `fields`); a patch sending none of them is refused. */
  require?: readonly string[];
  /** Checks (throw validation_failed) and derived columns, before anything is written, even when nothing changed. */
  apply?(change: RecordChange<R>): Promise<void> | void;
  /** The audit's field names, when the operation names its changes otherwise (a deal's stage): after apply. */
  audit?(change: RecordChange<R>): string[];
  /** The unique constraint a changed row can violate: its field error when the write loses the race. */
  unique?(next: RowOf<R>): { field: string; message: string } | undefined;
}

export interface UpdatedRecord<R extends AnyRecord> extends RecordChange<R> {
  before: RecordOf<R>;
  record: RecordOf<R>;
  /** The field names the audit event recorded. */
  audited: string[];
}

/**
 * Updates record `id` of this workspace with `patch` (resource_not_found when it is missing or hidden:
 * archived). JSON maps of editable('merge') fields merge key by key; other editable fields are replaced.
 * Writes only the columns that changed, in the call's transaction, and records the audit event.
 */
export async function updateRecord<R extends AnyRecord>(
  ctx: OperationContext,
  record: R,
  id: string,
  patch: PatchOf<R> & object,
  options: UpdateOptions<R> = {},
): Promise<UpdatedRecord<R>> {
  const fields = options.fields ?? record.editable;
  requireSomeField(patch, options.require ?? fields);
  const table = record.table as 'contacts';
  const row = (await findRow(ctx.db, table, ctx.workspaceId, id)) as RowOf<R> | undefined;
  const hidden = record.hiddenWhen && row && (row as Record<string, unknown>)[record.hiddenWhen] != null;
  if (!row || hidden) throw notFound(record.type.replaceAll('_', ' '));

  const sent = patch as Record<string, unknown>;
  const proposed: Record<string, unknown> = {};
  for (const name of fields) {
    const value = sent[name];
    const spec = record.fields[name]!.spec;
    if (value === undefined) continue;
    if (spec.editable === 'merge') {
      proposed[name] = mergedJson(row[name as keyof typeof row] as string, value as Record<string, unknown>);
    } else proposed[name] = value === null || !spec.encode ? value : spec.encode(value);
  }
  const { changes, changed } = diffFields(row, proposed, fields as (keyof RowOf<R> & string)[]);
  const next = { ...row, ...changes } as RowOf<R>;
  await options.apply?.({ row, next, changed });
  const audited = options.audit?.({ row, next, changed }) ?? changed;

  const set: Record<string, unknown> = {};
  for (const column of record.columns) {
    const value = (next as Record<string, unknown>)[column];
    if (value !== (row as Record<string, unknown>)[column]) set[column] = value;
  }
  if (Object.keys(set).length > 0) {
    set.updated_at = ctx.now;
    (next as Record<string, unknown>).updated_at = ctx.now;
    const write = () => updateRow(ctx.db, table, ctx.workspaceId, id, set);
    const unique = options.unique?.(next);
    await (unique ? uniquely(write, unique.field, unique.message) : write());
  }
  ctx.audit({ targetType: record.type, targetId: id, changedFields: audited });
  return {
    row,
    next,
    changed,
    audited,
    before: record.toRecord(row) as RecordOf<R>,
    record: record.toRecord(next) as RecordOf<R>,
  };
}
