import { type Kysely, sql } from 'kysely';
import { fetchKeysetPage, type KeysetColumn, type PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { Dialect } from '../../db/database.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import { slaBlock, slaBreachedAt } from './sla.ts';
import type {
  SupportQueue,
  SupportTicket,
  SupportTicketComment,
  SupportTicketMessage,
} from './support-schemas.ts';
import type {
  Priority,
  QueueStatus,
  SupportQueuesTable,
  SupportTicketCommentsTable,
  SupportTicketMessagesTable,
  SupportTicketsTable,
  TicketStatus,
} from './support-tables.ts';

export const UNRESOLVED: TicketStatus[] = ['new', 'open', 'pending', 'on_hold'];

export function toQueue(row: SupportQueuesTable): SupportQueue {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    status: row.status,
    default_assignee_id: row.default_assignee_id,
    default_priority: row.default_priority,
    first_response_target_minutes: row.first_response_target_minutes,
    next_response_target_minutes: row.next_response_target_minutes,
    resolution_target_minutes: row.resolution_target_minutes,
    custom_fields: JSON.parse(row.custom_fields),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toTicket(row: SupportTicketsTable, context: { now: string }): SupportTicket {
  const hasRequester = row.requester_contact_id || row.requester_email || row.requester_name;
  return {
    id: row.id,
    queue_id: row.queue_id,
    subject: row.subject,
    description: row.description,
    status: row.status,
    priority: row.priority,
    channel: row.channel,
    requester: hasRequester
      ? { contact_id: row.requester_contact_id, name: row.requester_name, email: row.requester_email }
      : null,
    assignee_id: row.assignee_id,
    tags: JSON.parse(row.tags) as string[],
    custom_fields: JSON.parse(row.custom_fields),
    sla: slaBlock(row, context.now),
    first_response_due_at: row.first_response_due_at,
    first_responded_at: row.first_responded_at,
    next_response_due_at: row.next_response_due_at,
    next_responded_at: row.next_responded_at,
    resolution_due_at: row.resolution_due_at,
    resolved_at: row.resolved_at,
    closed_at: row.closed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toMessage(row: SupportTicketMessagesTable): SupportTicketMessage {
  return {
    id: row.id,
    ticket_id: row.ticket_id,
    direction: row.direction,
    body: row.body,
    author: { id: row.author_id, name: row.author_name, email: row.author_email },
    created_at: row.created_at,
  };
}

export function toComment(row: SupportTicketCommentsTable): SupportTicketComment {
  return {
    id: row.id,
    ticket_id: row.ticket_id,
    body: row.body,
    author: { id: row.author_id, name: row.author_name },
    created_at: row.created_at,
  };
}

/** custom_fields[key] equals value, compared as text (5 matches "5", true matches "true"). */
export function customFieldEquals(dialect: Dialect, key: string, value: string) {
  if (dialect === 'postgres') return sql<boolean>`(custom_fields::jsonb ->> ${key}) = ${value}`;
  return sql<boolean>`exists (select 1 from json_each(custom_fields) where json_each.key = ${key} and (case json_each.type when 'true' then 'true' when 'false' then 'false' else cast(json_each.value as text) end) = ${value})`;
}

export const insertQueue = (db: Kysely<DB>, row: SupportQueuesTable) => insertRows(db, 'support_queues', row);
export const insertTicket = (db: Kysely<DB>, row: SupportTicketsTable) =>
  insertRows(db, 'support_tickets', row);
export const insertMessage = (db: Kysely<DB>, row: SupportTicketMessagesTable) =>
  insertRows(db, 'support_ticket_messages', row);
export const insertComment = (db: Kysely<DB>, row: SupportTicketCommentsTable) =>
  insertRows(db, 'support_ticket_comments', row);

export function updateTicketRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<SupportTicketsTable>,
) {
  return updateRow(db, 'support_tickets', workspaceId, id, changes);
}

export function findQueue(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'support_queues', workspaceId, id);
}

export async function findQueueByKey(db: Kysely<DB>, workspaceId: string, key: string) {
  return db
    .selectFrom('support_queues')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export function findTicket(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'support_tickets', workspaceId, id);
}

export async function listQueues(
  db: Kysely<DB>,
  dialect: Dialect,
  workspaceId: string,
  filters: { query?: string; status?: QueueStatus; custom_field_key?: string; custom_field_value?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('support_queues').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.custom_field_key !== undefined && filters.custom_field_value !== undefined) {
    query = query.where(customFieldEquals(dialect, filters.custom_field_key, filters.custom_field_value));
  }
  const result = await fetchSearchPage(db, query, page, {
    table: 'support_queues',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toQueue) };
}

export interface TicketFilters {
  queue_id?: string;
  status?: TicketStatus;
  priority?: Priority;
  assignee_id?: string;
  requester_contact_id?: string;
  requester_email?: string;
  query?: string;
  sla_breached?: boolean;
}

export async function listTickets(
  db: Kysely<DB>,
  workspaceId: string,
  filters: TicketFilters,
  page: PageRequest,
  now: string,
) {
  let query = db.selectFrom('support_tickets').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.queue_id) query = query.where('queue_id', '=', filters.queue_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.priority) query = query.where('priority', '=', filters.priority);
  if (filters.assignee_id) query = query.where('assignee_id', '=', filters.assignee_id);
  if (filters.requester_contact_id)
    query = query.where('requester_contact_id', '=', filters.requester_contact_id);
  if (filters.requester_email)
    query = query.where('requester_email', '=', filters.requester_email.toLowerCase());
  if (filters.sla_breached === true) query = query.where(slaBreachedAt(now));
  if (filters.sla_breached === false) query = query.where((eb) => eb.not(slaBreachedAt(now)(eb)));
  const result = await fetchSearchPage(db, query, page, {
    table: 'support_tickets',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map((row) => toTicket(row, { now })) };
}

/** A ticket's conversation is paged oldest first. */
const OLDEST_FIRST: KeysetColumn[] = [{ column: 'id', direction: 'asc', type: 'string' }];

export async function listMessages(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { ticket_id: string; direction?: 'inbound' | 'outbound' },
  page: PageRequest,
) {
  let query = db
    .selectFrom('support_ticket_messages')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('ticket_id', '=', filters.ticket_id);
  if (filters.direction) query = query.where('direction', '=', filters.direction);
  const result = await fetchKeysetPage(query, page, OLDEST_FIRST);
  return { ...result, items: result.items.map(toMessage) };
}

export async function listComments(db: Kysely<DB>, workspaceId: string, ticketId: string, page: PageRequest) {
  const query = db
    .selectFrom('support_ticket_comments')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('ticket_id', '=', ticketId);
  const result = await fetchKeysetPage(query, page, OLDEST_FIRST);
  return { ...result, items: result.items.map(toComment) };
}
