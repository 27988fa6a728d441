import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, mergedJson, requireSomeField, withoutNulls } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { FreeFields, Strict } from '../../core/schema.ts';
import { priority } from './queues.ts';
import { initialDueTimes } from './sla.ts';
import { SupportTicketSchema } from './support-schemas.ts';
import {
  findQueue,
  findTicket,
  insertTicket,
  listTickets,
  toTicket,
  updateTicketRow,
} from './support-store.ts';
import type { SupportTicketsTable, TicketStatus } from './support-tables.ts';

export const ticketRecord = defineRecordType({
  type: 'support_ticket',
  module: 'support',
  table: 'support_tickets',
  collection: '/v1/support/tickets',
  key: 'ticket',
  readScope: 'support:read',
  schema: SupportTicketSchema,
  toResource: toTicket,
});

export const ticketStatus = Enum(['new', 'open', 'pending', 'on_hold', 'solved', 'closed'] as const);
const channel = Enum(['email', 'web', 'chat', 'phone', 'api', 'mcp'] as const);
const tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
});
export const ticketId = Type.String({ minLength: 1 });
const queueId = Type.String({ minLength: 1 });

/** The queue a ticket is created in or moved to: it must exist and be active. */
async function activeQueue(ctx: OperationContext, id: string) {
  const queue = await findQueue(ctx.db, ctx.workspaceId, id);
  if (!queue) throw notFound('support queue');
  if (queue.status !== 'active') {
    throw validationFailed([
      { field: 'queue_id', message: `the queue is ${queue.status} and takes no new tickets` },
    ]);
  }
  return queue;
}

const unique = (values: string[]) => [...new Set(values)];

export const createSupportTicket = defineOperation({
  name: 'create_support_ticket',
  module: 'support',
  scopes: ['support:write'],
  kind: 'create',
  creates: 'support_ticket',
  summary: 'Create a support ticket',
  description:
    "Opens a ticket in an active queue for a requester (an existing contact, or an email and name). priority and assignee_id default to the queue's, channel to api on REST and mcp on MCP; SLA due times come from the queue's targets. Emits ticket.created.",
  input: Strict({
    queue_id: queueId,
    subject: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Type.String({ maxLength: 100_000 })),
    status: Type.Optional(
      Enum(['new', 'open', 'pending', 'on_hold'] as const, { description: 'Default new.' }),
    ),
    priority: Type.Optional(priority),
    channel: Type.Optional(channel),
    requester: Type.Optional(
      Strict(
        {
          contact_id: Type.Optional(Type.String({ minLength: 1 })),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
          email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
        },
        {
          description: "Name and email default to the contact's.",
        },
      ),
    ),
    assignee_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    tags: Type.Optional(tags),
    custom_fields: Type.Optional(FreeFields()),
  }),
  rest: { method: 'POST', path: '/v1/support/tickets' },
  responseKey: 'ticket',
  handler: async (ctx, input) => {
    const queue = await activeQueue(ctx, input.queue_id);
    const requester = input.requester ?? {};
    let requesterName = requester.name ?? null;
    let requesterEmail = requester.email?.toLowerCase() ?? null;
    if (requester.contact_id) {
      const contact = await ctx.requireRecord('contact', requester.contact_id);
      requesterName ??= (contact.name as string | null) ?? null;
      requesterEmail ??= (contact.email as string | null)?.toLowerCase() ?? null;
    } else if (input.requester && !requester.email) {
      throw validationFailed([
        { field: 'requester.email', message: 'is required when requester.contact_id is absent' },
      ]);
    }
    const row: SupportTicketsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('tkt'),
      queue_id: queue.id,
      subject: input.subject,
      description: input.description ?? null,
      status: (input.status as TicketStatus | undefined) ?? 'new',
      priority: input.priority ?? queue.default_priority,
      channel:
        (input.channel as SupportTicketsTable['channel'] | undefined) ??
        (ctx.surface === 'mcp' ? 'mcp' : 'api'),
      requester_contact_id: requester.contact_id ?? null,
      requester_name: requesterName,
      requester_email: requesterEmail,
      assignee_id: input.assignee_id ?? queue.default_assignee_id,
      tags: JSON.stringify(unique(input.tags ?? [])),
      custom_fields: JSON.stringify(withoutNulls(input.custom_fields)),
      ...initialDueTimes(queue, ctx.now),
      first_responded_at: null,
      next_response_due_at: null,
      next_responded_at: null,
      resolved_at: null,
      closed_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertTicket(ctx.db, row);
    const ticket = toTicket(row, ctx);
    ctx.audit({ targetType: 'support_ticket', targetId: ticket.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'ticket.created', targetType: 'support_ticket', targetId: ticket.id, data: ticket });
    return { body: { ticket }, createdId: ticket.id };
  },
});

export const listSupportTickets = defineOperation({
  name: 'list_support_tickets',
  module: 'support',
  scopes: ['support:read'],
  kind: 'read',
  summary: 'List support tickets',
  description:
    'Lists tickets, newest first, each with its sla block; query matches subject and description. sla_breached true: a first-response, next-response or resolution clock is breached now.',
  input: Strict({
    queue_id: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(ticketStatus),
    priority: Type.Optional(priority),
    assignee_id: Type.Optional(Type.String({ minLength: 1 })),
    requester_contact_id: Type.Optional(Type.String({ minLength: 1 })),
    requester_email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    sla_breached: Type.Optional(Type.Boolean()),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/support/tickets' },
  heavy: heavyFilters({
    indexed: ['queue_id', 'status', 'priority', 'assignee_id', 'requester_contact_id', 'requester_email'],
    scans: ['sla_breached'],
  }),
  responseKey: 'tickets',
  handler: async (ctx, input) => {
    const page = await listTickets(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_support_tickets', input),
      ctx.now,
    );
    return { body: listBody('tickets', page) };
  },
});

/** Status side effects: solving resolves, closing resolves and closes, reopening a solved ticket un-resolves. */
export function statusChanges(
  row: SupportTicketsTable,
  next: TicketStatus,
  now: string,
): Partial<SupportTicketsTable> {
  if (row.status === 'closed') {
    throw validationFailed([
      { field: 'status', message: 'a closed ticket cannot change status; open a new ticket' },
    ]);
  }
  if (next === 'solved') return { status: next, resolved_at: row.resolved_at ?? now };
  if (next === 'closed') return { status: next, resolved_at: row.resolved_at ?? now, closed_at: now };
  return { status: next, resolved_at: null };
}

/** ticket.status_changed when the status moved; ticket.updated when other fields changed. */
export function emitTicketChange(
  ctx: OperationContext,
  row: SupportTicketsTable,
  previous: TicketStatus,
  otherChanges: boolean,
) {
  const ticket = toTicket(row, ctx);
  if (row.status !== previous) {
    ctx.emit({
      name: 'ticket.status_changed',
      targetType: 'support_ticket',
      targetId: row.id,
      data: { ticket, previous_status: previous },
    });
  }
  if (otherChanges)
    ctx.emit({ name: 'ticket.updated', targetType: 'support_ticket', targetId: row.id, data: ticket });
  return ticket;
}

const UPDATABLE = [
  'subject',
  'description',
  'status',
  'priority',
  'assignee_id',
  'queue_id',
  'tags',
  'custom_fields',
] as const;

export const updateSupportTicket = defineOperation({
  name: 'update_support_ticket',
  module: 'support',
  scopes: ['support:write'],
  kind: 'update',
  summary: 'Update a support ticket',
  description:
    'Changes a ticket: assignee_id null unassigns, queue_id must be active (due times stay), tags are replaced. Solving sets resolved_at; closing sets closed_at and is final; reopening clears resolved_at. Emits ticket.status_changed on a status change, ticket.updated for other fields.',
  input: Strict({
    ticket_id: ticketId,
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()])),
    status: Type.Optional(ticketStatus),
    priority: Type.Optional(priority),
    assignee_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
    queue_id: Type.Optional(queueId),
    tags: Type.Optional(tags),
    custom_fields: Type.Optional(FreeFields('Merged; null removes a key.')),
  }),
  rest: { method: 'PATCH', path: '/v1/support/tickets/{ticket_id}' },
  responseKey: 'ticket',
  handler: async (ctx, input) => {
    requireSomeField(input, UPDATABLE);
    const row = await findTicket(ctx.db, ctx.workspaceId, input.ticket_id);
    if (!row) throw notFound('support ticket');
    const moved = input.queue_id !== undefined && input.queue_id !== row.queue_id;
    const proposed = {
      ...input,
      queue_id: moved ? (await activeQueue(ctx, input.queue_id!)).id : undefined,
      tags: input.tags && JSON.stringify(unique(input.tags)),
      custom_fields: mergedJson(row.custom_fields, input.custom_fields),
      ...(input.status !== undefined && input.status !== row.status
        ? statusChanges(row, input.status, ctx.now)
        : {}),
    };
    // Solving and closing stamp their times: they are named among the changed fields too.
    const { changes, changed } = diffFields(row, proposed, [...UPDATABLE, 'resolved_at', 'closed_at']);
    const next = { ...row, ...changes, updated_at: changed.length ? ctx.now : row.updated_at };
    if (changed.length) {
      await updateTicketRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    ctx.audit({ targetType: 'support_ticket', targetId: row.id, changedFields: changed });
    const otherChanges = changed.some((field) => !['status', 'resolved_at', 'closed_at'].includes(field));
    return { body: { ticket: emitTicketChange(ctx, next, row.status, otherChanges) } };
  },
});
