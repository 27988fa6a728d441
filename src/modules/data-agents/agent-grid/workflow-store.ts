// Queries of agent workflows and their versions.
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows, updateRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { Step, Trigger, Workflow, WorkflowVersion } from './agent-grid-schemas.ts';
import { parseJson } from './agent-grid-shared.ts';
import type {
  AgentStatus,
  AgentWorkflowsTable,
  AgentWorkflowVersionsTable,
  TriggerType,
} from './agent-grid-tables.ts';
import { readSteps } from './workflow-steps.ts';

export function toWorkflow(row: AgentWorkflowsTable): Workflow {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    trigger: parseJson<Trigger>(row.trigger),
    steps: readSteps(parseJson<Step[]>(row.steps)),
    status: row.status,
    latest_version: Number(row.latest_version),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toWorkflowVersion(row: AgentWorkflowVersionsTable): WorkflowVersion {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    version: Number(row.version),
    key: row.key,
    name: row.name,
    description: row.description,
    trigger: parseJson<Trigger>(row.trigger),
    steps: readSteps(parseJson<Step[]>(row.steps)),
    changelog: row.changelog,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findWorkflow = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'agent_workflows', workspaceId, id);

export const findWorkflowByKey = (db: Kysely<DB>, workspaceId: string, key: string) =>
  db
    .selectFrom('agent_workflows')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();

export const insertWorkflow = (db: Kysely<DB>, row: AgentWorkflowsTable) =>
  insertRows(db, 'agent_workflows', row);

export const updateWorkflowRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AgentWorkflowsTable>,
) => updateRow(db, 'agent_workflows', workspaceId, id, changes);

export async function listWorkflows(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: AgentStatus; trigger_type?: TriggerType; key?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('agent_workflows').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.trigger_type) query = query.where('trigger_type', '=', filters.trigger_type);
  if (filters.key) query = query.where('key', '=', filters.key);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toWorkflow) };
}

export const findWorkflowVersion = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'agent_workflow_versions', workspaceId, id);

export const insertWorkflowVersion = (db: Kysely<DB>, row: AgentWorkflowVersionsTable) =>
  insertRows(db, 'agent_workflow_versions', row);

export async function listWorkflowVersions(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { workflow_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('agent_workflow_versions').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.workflow_id) query = query.where('workflow_id', '=', filters.workflow_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toWorkflowVersion) };
}
