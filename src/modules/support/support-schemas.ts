// The support resources as the API returns them, declared once: record types, operation responses, MCP
// outputSchema, OpenAPI components and the module's domain event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  FieldValues,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';

export const priorities = ['low', 'normal', 'high', 'urgent'] as const;
export const ticketStatuses = ['new', 'open', 'pending', 'on_hold', 'solved', 'closed'] as const;

const minutes = (example: number) => Nullable(Type.Integer({ examples: [example] }));

export const SupportQueueSchema = Resource('SupportQueue', {
  id: RecordId('sq'),
  key: Text('billing'),
  name: Text('Billing questions'),
  description: NullableText('Invoices, refunds and plan changes.'),
  status: Enum(['active', 'paused', 'archived'] as const),
  default_assignee_id: NullableText('usr_ada'),
  default_priority: Enum(priorities),
  first_response_target_minutes: minutes(60),
  next_response_target_minutes: minutes(240),
  resolution_target_minutes: minutes(2880),
  custom_fields: FieldValues(),
  ...timestamps,
});
export type SupportQueue = Static<typeof SupportQueueSchema>;

const slaState = Nullable(Enum(['pending', 'met', 'breached'] as const), {
  description: 'null when the queue sets no target for this clock.',
});

export const SupportTicketSchema = Resource('SupportTicket', {
  id: RecordId('tkt'),
  queue_id: RecordId('sq'),
  subject: Text('Cannot sign in since the update'),
  description: NullableText('The login page loops back to itself after the password step.'),
  status: Enum(ticketStatuses),
  priority: Enum(priorities),
  channel: Enum(['email', 'web', 'chat', 'phone', 'api', 'mcp'] as const),
  requester: Nullable(
    Shape({
      contact_id: Nullable(RecordId('con')),
      name: NullableText('Ada Lovelace'),
      email: NullableText('ada@example.com'),
    }),
  ),
  assignee_id: NullableText('usr_grace'),
  tags: Type.Array(Type.String(), { examples: [['login', 'urgent-customer']] }),
  custom_fields: FieldValues(),
  sla: Shape({
    first_response: slaState,
    next_response: slaState,
    resolution: slaState,
    breached: Type.Boolean(),
  }),
  first_response_due_at: NullableTimestamp(),
  first_responded_at: NullableTimestamp(),
  next_response_due_at: NullableTimestamp(),
  next_responded_at: NullableTimestamp(),
  resolution_due_at: NullableTimestamp(),
  resolved_at: NullableTimestamp(),
  closed_at: NullableTimestamp(),
  ...timestamps,
});
export type SupportTicket = Static<typeof SupportTicketSchema>;

export const SupportTicketMessageSchema = Resource('SupportTicketMessage', {
  id: RecordId('tmsg'),
  ticket_id: RecordId('tkt'),
  direction: Enum(['inbound', 'outbound'] as const),
  body: Text('Could you try clearing the cookies and signing in again?'),
  author: Shape({
    id: NullableText('usr_grace'),
    name: NullableText('Grace Hopper'),
    email: NullableText('grace@example.com'),
  }),
  created_at: timestamps.created_at,
});
export type SupportTicketMessage = Static<typeof SupportTicketMessageSchema>;

export const SupportTicketCommentSchema = Resource('SupportTicketComment', {
  id: RecordId('tcom'),
  ticket_id: RecordId('tkt'),
  body: Text('Reproduced on staging; it is the new session cookie.'),
  author: Shape({ id: NullableText('usr_grace'), name: NullableText('Grace Hopper') }),
  created_at: timestamps.created_at,
});
export type SupportTicketComment = Static<typeof SupportTicketCommentSchema>;

/** add_support_ticket_message's body and ticket.message_added's data: the message and the ticket after it. */
export const MessageAddedSchema = Type.Object(
  { message: SupportTicketMessageSchema, ticket: SupportTicketSchema },
  { additionalProperties: false },
);

/** ticket.comment_added's data. */
export const CommentAddedSchema = Type.Object(
  { comment: SupportTicketCommentSchema, ticket: SupportTicketSchema },
  { additionalProperties: false },
);

/** ticket.status_changed's data. */
export const TicketStatusChangeSchema = Type.Object(
  { ticket: SupportTicketSchema, previous_status: Enum(ticketStatuses) },
  { additionalProperties: false },
);
