// Queries shared by the stores of decisions, insights, recommendations, source objects and knowledge
// artifacts: a status move guarded by the status it leaves (no lost update between two concurrent moves),
// and the 409 that names the status a record is in.
import type { Kysely } from 'kysely';
import { fail } from '../../../core/errors.ts';
import type { DB } from '../../../db/tables.ts';
import type { GovernedTables } from './governed-tables.ts';

type StatusTable =
  | 'data_agent_decisions'
  | 'data_agent_insights'
  | 'data_agent_recommendations'
  | 'data_agent_knowledge_artifacts';

/** Sets `changes` when the row is still in one of `from`; false when another call moved it first. */
export async function moveFrom<T extends StatusTable>(
  db: Kysely<DB>,
  table: T,
  workspaceId: string,
  id: string,
  from: readonly string[],
  changes: Partial<GovernedTables[T]>,
): Promise<boolean> {
  const result = await db
    .updateTable(table as 'data_agent_decisions')
    .set(changes as never)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** 409 conflict naming the record's current status and what the request needs. */
export function statusConflict(what: string, status: string, needs: string) {
  return fail('conflict', { message: `The ${what} is ${status}; ${needs}.` });
}
