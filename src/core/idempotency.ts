import type { Kysely } from 'kysely';
import { reusableQuery } from '../db/reusable-query.ts';
import type { DB } from '../db/tables.ts';
import { canonicalJson, sha256Hex } from './canonical-json.ts';
import type { OperationDefinition } from './define-operation.ts';
import { fail, validationFailed } from './errors.ts';

export const IDEMPOTENCY_RETENTION_DAYS = 7;

/** SHA-256 over the operation and the canonical input without its key: REST and MCP agree on it. */
export function fingerprint(operation: string, input: Record<string, unknown>): string {
  const { idempotency_key: _key, ...rest } = input;
  return sha256Hex(`${operation}\n${canonicalJson(rest)}`);
}

/**
 * What an operation's idempotency keys are scoped by: the run type for run starts, the record type for
 * creates (every create declares one or the other: the registry refuses it otherwise); undefined for the
 * writes that accept a key and ignore it.
 */
export function idempotencyScope(op: Pick<OperationDefinition, 'kind' | 'creates' | 'starts'>) {
  if (op.starts) return `run:${op.starts.runType}`;
  return op.kind === 'create' ? op.creates : undefined;
}

/**
 * The input with the REST `Idempotency-Key` header as its idempotency_key, for operations that honour keys
 * (the header is an alias of the field: both sent and different is validation_failed naming the field).
 */
export function withKeyHeader(
  op: OperationDefinition,
  input: Record<string, unknown>,
  header: string | undefined,
): Record<string, unknown> {
  if (header === undefined || !idempotencyScope(op)) return input;
  if (input.idempotency_key !== undefined && input.idempotency_key !== header) {
    throw validationFailed([
      { field: 'idempotency_key', message: 'differs from the Idempotency-Key header; send one key' },
    ]);
  }
  return { ...input, idempotency_key: header };
}

export interface KeyClaim {
  workspaceId: string;
  resourceType: string;
  key: string;
  operation: string;
  fingerprint: string;
  now: string;
}

export type Claim = { state: 'new' } | { state: 'replay'; resourceId: string };

// On the path of every create with a key: compiled once per executor (reusable-query.ts).
const insertClaim = reusableQuery((db) =>
  db
    .insertInto('idempotency_keys')
    .values({
      workspace_id: '',
      resource_type: '',
      key: '',
      operation: '',
      fingerprint: '',
      resource_id: null,
      created_at: '',
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'resource_type', 'key']).doNothing())
    .returning('key'),
);

const claimedKey = reusableQuery((db) =>
  db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'resource_id'])
    .where('workspace_id', '=', '')
    .where('resource_type', '=', '')
    .where('key', '=', ''),
);

/**
 * Claims (workspace, resource type, key) inside the create's transaction. The primary key decides a race:
 * the loser's insert waits for the winner's commit, inserts nothing, and then replays the winner's record.
 */
export async function claimKey(db: Kysely<DB>, claim: KeyClaim): Promise<Claim> {
  const [inserted] = await insertClaim(db, [
    claim.workspaceId,
    claim.resourceType,
    claim.key,
    claim.operation,
    claim.fingerprint,
    null,
    claim.now,
  ]);
  if (inserted) return { state: 'new' };

  const replay = await claimedBefore(db, claim);
  if (!replay) throw new Error('idempotency key claimed by a transaction that left no row');
  return replay;
}

/**
 * The replay of a key a committed call claimed (409 idempotency_conflict for another input), or undefined
 * when no call has: what a create with a heavy read asks before reading, so a replay never reads again.
 */
export async function claimedBefore(
  db: Kysely<DB>,
  claim: KeyClaim,
): Promise<{ state: 'replay'; resourceId: string } | undefined> {
  const [existing] = await claimedKey(db, [claim.workspaceId, claim.resourceType, claim.key]);
  if (!existing) return undefined;
  if (existing.fingerprint !== claim.fingerprint || !existing.resource_id) {
    throw fail('idempotency_conflict', { idempotency_key: claim.key });
  }
  return { state: 'replay', resourceId: existing.resource_id };
}

export async function bindKey(
  db: Kysely<DB>,
  claim: { workspaceId: string; resourceType: string; key: string },
  resourceId: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ resource_id: resourceId })
    .where('workspace_id', '=', claim.workspaceId)
    .where('resource_type', '=', claim.resourceType)
    .where('key', '=', claim.key)
    .execute();
}

/** System maintenance across every workspace: keys older than the retention period are forgotten. */
export async function sweepExpiredKeys(db: Kysely<DB>, now: Date, system: { system: true }): Promise<number> {
  void system;
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_DAYS * 86_400_000).toISOString();
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
