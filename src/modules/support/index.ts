import { Type } from '@sinclair/typebox';
import type { ModuleDefinition } from '../../core/module.ts';
import {
  addSupportTicketComment,
  addSupportTicketMessage,
  commentRecord,
  listSupportTicketComments,
  listSupportTicketMessages,
  messageRecord,
} from './conversation.ts';
import { createSupportQueue, listSupportQueues, queueRecord } from './queues.ts';
import { supportCounts } from './support-store.ts';
import { createSupportTicket, listSupportTickets, ticketRecord, updateSupportTicket } from './tickets.ts';

const nullableString = Type.Union([Type.String(), Type.Null()]);
const slaState = Type.Union([Type.Literal('pending'), Type.Literal('met'), Type.Literal('breached'), Type.Null()]);

/** Payload schemas for the integration event catalogue (the fields a subscriber relies on). */
const ticketSchema = Type.Object({
  id: Type.String(),
  queue_id: Type.String(),
  subject: Type.String(),
  status: Type.String({ description: 'new, open, pending, on_hold, solved or closed' }),
  priority: Type.String({ description: 'low, normal, high or urgent' }),
  channel: Type.String(),
  requester: Type.Union([
    Type.Object({ contact_id: nullableString, name: nullableString, email: nullableString }),
    Type.Null(),
  ]),
  assignee_id: nullableString,
  tags: Type.Array(Type.String()),
  sla: Type.Object({ first_response: slaState, next_response: slaState, resolution: slaState, breached: Type.Boolean() }),
  first_response_due_at: nullableString,
  resolution_due_at: nullableString,
  resolved_at: nullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
});
const author = Type.Object({ id: nullableString, name: nullableString });
const messageSchema = Type.Object({
  id: Type.String(),
  ticket_id: Type.String(),
  direction: Type.String({ description: 'inbound or outbound' }),
  body: Type.String(),
  author: Type.Object({ id: nullableString, name: nullableString, email: nullableString }),
  created_at: Type.String(),
});
const commentSchema = Type.Object({ id: Type.String(), ticket_id: Type.String(), body: Type.String(), author, created_at: Type.String() });

export const supportModule: ModuleDefinition = {
  name: 'support',
  operations: [
    createSupportQueue,
    listSupportQueues,
    createSupportTicket,
    listSupportTickets,
    updateSupportTicket,
    addSupportTicketMessage,
    listSupportTicketMessages,
    addSupportTicketComment,
    listSupportTicketComments,
  ],
  recordTypes: [queueRecord, ticketRecord, messageRecord, commentRecord],
  events: [
    {
      name: 'support_queue.created',
      description: 'A support queue was created; data is the queue.',
      schema: Type.Object({ id: Type.String(), key: Type.String(), name: Type.String(), status: Type.String() }),
    },
    { name: 'ticket.created', description: 'A support ticket was opened; data is the ticket.', schema: ticketSchema },
    {
      name: 'ticket.updated',
      description: 'Fields of a ticket other than its status changed (subject, priority, assignee ...); data is the ticket.',
      schema: ticketSchema,
    },
    {
      name: 'ticket.status_changed',
      description: 'A ticket moved to another status (by an update or a message); data is {ticket, previous_status}.',
      schema: Type.Object({ ticket: ticketSchema, previous_status: Type.String() }),
    },
    {
      name: 'ticket.message_added',
      description: 'A message of the conversation with the requester was added; data is {message, ticket}.',
      schema: Type.Object({ message: messageSchema, ticket: ticketSchema }),
    },
    {
      name: 'ticket.comment_added',
      description: 'An internal comment (team note, never sent to the requester) was added; data is {comment, ticket}.',
      schema: Type.Object({ comment: commentSchema, ticket: ticketSchema }),
    },
  ],
  summary: [
    {
      module: 'support',
      scope: 'support:read',
      key: 'support',
      compute: (db, workspaceId, now) => supportCounts(db, workspaceId, now),
    },
  ],
};
