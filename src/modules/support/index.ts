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
import {
  CommentAddedSchema,
  MessageAddedSchema,
  SupportQueueSchema,
  SupportTicketSchema,
  TicketStatusChangeSchema,
} from './support-schemas.ts';
import { supportCounts } from './support-summary-store.ts';
import type { SupportTables } from './support-tables.ts';
import { createSupportTicket, listSupportTickets, ticketRecord, updateSupportTicket } from './tickets.ts';

const identity = { name: 'support', scopes: ['support:read', 'support:write'] } as const;

export const supportModule: ModuleDefinition<typeof identity, SupportTables> = {
  ...identity,
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
      schema: SupportQueueSchema,
    },
    {
      name: 'ticket.created',
      description: 'A support ticket was opened; data is the ticket.',
      schema: SupportTicketSchema,
    },
    {
      name: 'ticket.updated',
      description:
        'Fields of a ticket other than its status changed (subject, priority, assignee ...); data is the ticket.',
      schema: SupportTicketSchema,
    },
    {
      name: 'ticket.status_changed',
      description:
        'A ticket moved to another status (by an update or a message); data is {ticket, previous_status}.',
      schema: TicketStatusChangeSchema,
    },
    {
      name: 'ticket.message_added',
      description: 'A message of the conversation with the requester was added; data is {message, ticket}.',
      schema: MessageAddedSchema,
    },
    {
      name: 'ticket.comment_added',
      description:
        'An internal comment (team note, never sent to the requester) was added; data is {comment, ticket}.',
      schema: CommentAddedSchema,
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
