// What a write stores after its handler, in its transaction: the idempotency key bound to the created
// record, the audit events, the outbox events and the call event. On PostgreSQL they go in one statement
// (data-modifying CTEs) sent with the transaction's COMMIT: one round trip instead of one per row and one for
// the commit, the same rows in the same transaction (if the statement fails, the COMMIT rolls it back). On
// SQLite, in process, a statement costs no round trip, so each goes on its own.
import { CompiledQuery, type Kysely } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import { commitsTransaction } from '../db/pg-driver.ts';
import type { AuditEventsTable, CallEventsTable, DB, OutboxEventsTable } from '../db/tables.ts';
import { AUDIT_COLUMNS, insertAuditEvents } from './audit.ts';
import { CALL_EVENT_COLUMNS, insertCallEvent } from './call-events.ts';
import { bindKey } from './idempotency.ts';
import { insertOutboxEvents, OUTBOX_COLUMNS } from './outbox.ts';

export interface WriteEffects {
  /** The key claimed before the handler, bound now to the record it created. */
  bind?: { workspaceId: string; resourceType: string; key: string; resourceId: string };
  audits: AuditEventsTable[];
  outbox: OutboxEventsTable[];
  callEvent: CallEventsTable;
}

/** Past this many rows (a bulk write), the rows go in separate inserts: a statement takes 65,535 parameters. */
const MAX_ROWS_IN_ONE_STATEMENT = 200;

/** The last statements of a write's transaction: its work must return right after (pg-driver.ts). */
export async function insertWriteEffects(db: Kysely<DB>, effects: WriteEffects): Promise<void> {
  const { bind, audits, outbox, callEvent } = effects;
  if (!isPostgres(db) || audits.length + outbox.length > MAX_ROWS_IN_ONE_STATEMENT) {
    if (bind) await bindKey(db, bind, bind.resourceId);
    await insertAuditEvents(db, audits);
    await insertOutboxEvents(db, outbox);
    await insertCallEvent(db, callEvent);
    return;
  }
  const parameters: unknown[] = [];
  if (bind) parameters.push(bind.resourceId, bind.workspaceId, bind.resourceType, bind.key);
  for (const row of audits) for (const column of AUDIT_COLUMNS) parameters.push(row[column] ?? null);
  for (const row of outbox) for (const column of OUTBOX_COLUMNS) parameters.push(row[column] ?? null);
  for (const column of CALL_EVENT_COLUMNS) parameters.push(callEvent[column] ?? null);
  const query = CompiledQuery.raw(statement(!!bind, audits.length, outbox.length), parameters);
  await db.executeQuery(commitsTransaction(query));
}

// The statement text of each shape (bind or not, audit rows, outbox rows), built once.
const statements = new Map<string, string>();

function statement(bind: boolean, audits: number, outbox: number): string {
  const shape = `${bind}:${audits}:${outbox}`;
  let text = statements.get(shape);
  if (text) return text;
  let next = 1;
  const values = (columns: readonly string[], rows: number) =>
    Array.from({ length: rows }, () => `(${columns.map(() => `$${next++}`).join(', ')})`).join(', ');
  const insert = (table: string, columns: readonly string[], rows: number) =>
    `insert into ${table} (${columns.join(', ')}) values ${values(columns, rows)}`;
  const steps: string[] = [];
  if (bind) {
    steps.push(
      'update idempotency_keys set resource_id = $1 where workspace_id = $2 and resource_type = $3 and key = $4',
    );
    next = 5;
  }
  if (audits > 0) steps.push(insert('audit_events', AUDIT_COLUMNS, audits));
  if (outbox > 0) steps.push(insert('outbox_events', OUTBOX_COLUMNS, outbox));
  const last = insert('call_events', CALL_EVENT_COLUMNS, 1);
  text = steps.length ? `with ${steps.map((step, i) => `w${i} as (${step})`).join(', ')} ${last}` : last;
  if (statements.size < 1_000) statements.set(shape, text);
  return text;
}
