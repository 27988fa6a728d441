// A ticket's conversation with its requester (messages) and the team's internal notes (comments).
import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { clocksAfterMessage } from './sla.ts';
import {
  MessageAddedSchema,
  SupportTicketCommentSchema,
  SupportTicketMessageSchema,
} from './support-schemas.ts';
import {
  findQueue,
  findTicket,
  insertComment,
  insertMessage,
  listComments,
  listMessages,
  toComment,
  toMessage,
  toTicket,
  updateTicketRow,
} from './support-store.ts';
import type {
  SupportTicketCommentsTable,
  SupportTicketMessagesTable,
  SupportTicketsTable,
} from './support-tables.ts';
import { emitTicketChange, statusChanges, ticketId } from './tickets.ts';

export const messageRecord = defineRecordType({
  type: 'support_ticket_message',
  module: 'support',
  table: 'support_ticket_messages',
  collection: '/v1/support/messages',
  key: 'message',
  readScope: 'support:read',
  schema: SupportTicketMessageSchema,
  toResource: toMessage,
});

export const commentRecord = defineRecordType({
  type: 'support_ticket_comment',
  module: 'support',
  table: 'support_ticket_comments',
  collection: '/v1/support/comments',
  key: 'comment',
  readScope: 'support:read',
  schema: SupportTicketCommentSchema,
  toResource: toComment,
});

const direction = Enum(['inbound', 'outbound'] as const);

async function requireTicket(ctx: OperationContext, id: string) {
  const ticket = await findTicket(ctx.db, ctx.workspaceId, id);
  if (!ticket) throw notFound('support ticket');
  return ticket;
}

export const addSupportTicketMessage = defineOperation({
  name: 'add_support_ticket_message',
  module: 'support',
  scopes: ['support:write'],
  kind: 'create',
  creates: 'support_ticket_message',
  summary: 'Add a message to a ticket',
  description:
    'Adds a message with the requester: outbound is a reply (the first sets first_responded_at against the first-response SLA); inbound after a reply starts the next-response clock. Outbound moves a new ticket to open; inbound reopens a pending or solved one. Not on closed tickets; internal notes: add_support_ticket_comment. Emits ticket.message_added, plus ticket.status_changed when the status moved.',
  input: Strict({
    ticket_id: ticketId,
    direction,
    body: Type.String({ minLength: 1, maxLength: 100_000 }),
    author: Type.Optional(
      Strict(
        {
          id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
          email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
        },
        {
          description: 'Default the requester (inbound) or the calling credential (outbound).',
        },
      ),
    ),
  }),
  rest: { method: 'POST', path: '/v1/support/tickets/{ticket_id}/messages' },
  responseKey: 'message',
  response: MessageAddedSchema,
  handler: async (ctx, input) => {
    const ticket = await requireTicket(ctx, input.ticket_id);
    if (ticket.status === 'closed') {
      throw validationFailed([
        { field: 'ticket_id', message: 'the ticket is closed and takes no messages; open a new ticket' },
      ]);
    }
    const inbound = input.direction === 'inbound';
    const author = input.author ?? {};
    const row: SupportTicketMessagesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('tmsg'),
      ticket_id: ticket.id,
      direction: input.direction,
      body: input.body,
      author_id: author.id ?? (inbound ? ticket.requester_contact_id : ctx.actor.credentialId),
      author_name: author.name ?? (inbound ? ticket.requester_name : ctx.actor.name),
      author_email: author.email?.toLowerCase() ?? (inbound ? ticket.requester_email : null),
      created_at: ctx.now,
    };
    await insertMessage(ctx.db, row);

    const queue = await findQueue(ctx.db, ctx.workspaceId, ticket.queue_id);
    const changes: Partial<SupportTicketsTable> = clocksAfterMessage(
      ticket,
      input.direction,
      queue?.next_response_target_minutes ?? null,
      ctx.now,
    );
    if (!inbound && ticket.status === 'new') Object.assign(changes, statusChanges(ticket, 'open', ctx.now));
    if (inbound && (ticket.status === 'pending' || ticket.status === 'solved')) {
      Object.assign(changes, statusChanges(ticket, 'open', ctx.now));
    }
    await updateTicketRow(ctx.db, ctx.workspaceId, ticket.id, { ...changes, updated_at: ctx.now });
    const message = toMessage(row);
    const updated = emitTicketChange(
      ctx,
      { ...ticket, ...changes, updated_at: ctx.now },
      ticket.status,
      false,
    );
    ctx.audit({
      targetType: 'support_ticket_message',
      targetId: message.id,
      changedFields: inputFields(input),
    });
    ctx.audit({
      targetType: 'support_ticket',
      targetId: ticket.id,
      action: 'update',
      changedFields: Object.keys(changes),
    });
    ctx.emit({
      name: 'ticket.message_added',
      targetType: 'support_ticket',
      targetId: ticket.id,
      data: { message, ticket: updated },
    });
    return { body: { message, ticket: updated }, createdId: message.id };
  },
  replay: async (ctx, message) => {
    const ticket = await requireTicket(ctx, String(message.ticket_id));
    return { message, ticket: toTicket(ticket, ctx) };
  },
});

export const listSupportTicketMessages = defineOperation({
  name: 'list_support_ticket_messages',
  module: 'support',
  scopes: ['support:read'],
  kind: 'read',
  summary: "List a ticket's messages",
  description:
    "Lists a ticket's conversation with its requester, oldest first. Internal comments are in list_support_ticket_comments.",
  input: Strict({ ticket_id: ticketId, direction: Type.Optional(direction), ...pageInput }),
  rest: { method: 'GET', path: '/v1/support/tickets/{ticket_id}/messages' },
  responseKey: 'messages',
  handler: async (ctx, input) => {
    await requireTicket(ctx, input.ticket_id);
    const page = await listMessages(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_support_ticket_messages', input),
    );
    return { body: listBody('messages', page) };
  },
});

export const addSupportTicketComment = defineOperation({
  name: 'add_support_ticket_comment',
  module: 'support',
  scopes: ['support:write'],
  kind: 'create',
  creates: 'support_ticket_comment',
  summary: 'Add an internal comment to a ticket',
  description:
    'Adds an internal team note to a ticket: never a message to the requester; no effect on SLA clocks or status. Allowed on closed tickets. Emits ticket.comment_added.',
  input: Strict({
    ticket_id: ticketId,
    body: Type.String({ minLength: 1, maxLength: 100_000 }),
    author: Type.Optional(
      Strict(
        {
          id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        },
        { description: 'Default the calling credential.' },
      ),
    ),
  }),
  rest: { method: 'POST', path: '/v1/support/tickets/{ticket_id}/comments' },
  responseKey: 'comment',
  handler: async (ctx, input) => {
    const ticket = await requireTicket(ctx, input.ticket_id);
    const row: SupportTicketCommentsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('tcom'),
      ticket_id: ticket.id,
      body: input.body,
      author_id: input.author?.id ?? ctx.actor.credentialId,
      author_name: input.author?.name ?? ctx.actor.name,
      created_at: ctx.now,
    };
    await insertComment(ctx.db, row);
    const comment = toComment(row);
    ctx.audit({
      targetType: 'support_ticket_comment',
      targetId: comment.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'ticket.comment_added',
      targetType: 'support_ticket',
      targetId: ticket.id,
      data: { comment, ticket: toTicket(ticket, ctx) },
    });
    return { body: { comment }, createdId: comment.id };
  },
});

export const listSupportTicketComments = defineOperation({
  name: 'list_support_ticket_comments',
  module: 'support',
  scopes: ['support:read'],
  kind: 'read',
  summary: "List a ticket's internal comments",
  description:
    "Lists a ticket's internal comments (team notes), oldest first; messages with the requester are in list_support_ticket_messages.",
  input: Strict({ ticket_id: ticketId, ...pageInput }),
  rest: { method: 'GET', path: '/v1/support/tickets/{ticket_id}/comments' },
  responseKey: 'comments',
  handler: async (ctx, input) => {
    await requireTicket(ctx, input.ticket_id);
    const page = await listComments(
      ctx.db,
      ctx.workspaceId,
      input.ticket_id,
      pageRequest('list_support_ticket_comments', input),
    );
    return { body: listBody('comments', page) };
  },
});
