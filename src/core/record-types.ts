import type { Static, TObject } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { ModuleName, Scope } from './catalogue.ts';

/**
 * A kind of record the service stores. From it come REST GET /v1/<collection>/{id}, related-record checks
 * (related_resource_type + related_resource_id), idempotent replays and entitlement counts. Its schema is
 * the resource as the API returns it, declared once: responses, MCP outputSchema, OpenAPI components and
 * domain event schemas reuse it, and toResource returns exactly its static type.
 */
export interface RecordType<S extends TObject = TObject> {
  /** As written in audit events and related_resource_type: contact, deal, support_ticket. */
  type: string;
  module: ModuleName;
  table: keyof DB & string;
  /** REST collection path, e.g. /v1/contacts; the lookup route is <collection>/{<type>_id}. */
  collection: string;
  /** Key of the record in response bodies, e.g. contact. */
  key: string;
  readScope: Scope;
  /** Column that hides a record from reads when set (archived_at). */
  hiddenWhen?: string;
  /**
   * The most records of the type a workspace may hold while the operator has set no entitlement for it (an
   * entitlement replaces the default, up or down). Such a cap counts live records: those hiddenWhen hides
   * (archived) free their slot. Types without it are unlimited until an entitlement, which counts every row.
   */
  defaultMaximum?: number;
  /**
   * Reads the row toResource maps when the resource needs more than its table's row (an Analytics Site
   * shows its keys, kept in a table of their own). Default: the table's row with this ID. hiddenWhen
   * applies to what it returns. publicUrl is the service's (WOS_PUBLIC_URL), for links it signs (an export's
   * download URL).
   */
  load?(
    db: Kysely<DB>,
    workspaceId: string,
    id: string,
    now: string,
    publicUrl: string,
  ): Promise<object | undefined>;
  /** The resource schema (resource-schema.ts: Resource()). */
  schema: S;
  /** Maps a row to the API resource; `now` is the call's time, for derived fields such as SLA status. */
  toResource(row: any, context: { now: string }): Static<S>;
}

/** Declares a record type; its mapper must return the static type of its schema. */
export function defineRecordType<S extends TObject>(recordType: RecordType<S>): RecordType<S> {
  return recordType;
}

export async function loadRecord(
  db: Kysely<DB>,
  workspaceId: string,
  recordType: RecordType,
  id: string,
  now: string,
  publicUrl: string,
): Promise<Record<string, unknown> | undefined> {
  if (recordType.load) {
    const row = (await recordType.load(db, workspaceId, id, now, publicUrl)) as
      | Record<string, unknown>
      | undefined;
    if (!row || (recordType.hiddenWhen && row[recordType.hiddenWhen] != null)) return undefined;
    return recordType.toResource(row, { now }) as Record<string, unknown>;
  }
  let query = db
    .selectFrom(recordType.table as 'contacts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id);
  if (recordType.hiddenWhen) query = query.where(recordType.hiddenWhen as 'id', 'is', null);
  const row = await query.executeTakeFirst();
  return row ? (recordType.toResource(row, { now }) as Record<string, unknown>) : undefined;
}

/** The records an entitlement counts: every row, or the live ones for a type with a default cap. */
export async function countRecords(
  db: Kysely<DB>,
  workspaceId: string,
  recordType: RecordType,
): Promise<number> {
  let query = db
    .selectFrom(recordType.table as 'contacts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId);
  if (recordType.defaultMaximum !== undefined && recordType.hiddenWhen)
    query = query.where(recordType.hiddenWhen as 'id', 'is', null);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.count);
}
