export type QueueStatus = 'active' | 'paused' | 'archived';
export type Priority = 'low' | 'normal' | 'high' | 'urgent';
export type TicketStatus = 'new' | 'open' | 'pending' | 'on_hold' | 'solved' | 'closed';
export type TicketChannel = 'email' | 'web' | 'chat' | 'phone' | 'api' | 'mcp';
export type MessageDirection = 'inbound' | 'outbound';

export interface SupportQueuesTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  description: string | null;
  status: QueueStatus;
  default_assignee_id: string | null;
  default_priority: Priority;
  first_response_target_minutes: number | null;
  next_response_target_minutes: number | null;
  resolution_target_minutes: number | null;
  /** JSON object of scalar values. */
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

export interface SupportTicketsTable {
  workspace_id: string;
  id: string;
  queue_id: string;
  subject: string;
  description: string | null;
  status: TicketStatus;
  priority: Priority;
  channel: TicketChannel;
  requester_contact_id: string | null;
  requester_name: string | null;
  requester_email: string | null;
  assignee_id: string | null;
  /** JSON array of strings. */
  tags: string;
  /** JSON object of scalar values. */
  custom_fields: string;
  first_response_due_at: string | null;
  first_responded_at: string | null;
  next_response_due_at: string | null;
  next_responded_at: string | null;
  resolution_due_at: string | null;
  resolved_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SupportTicketMessagesTable {
  workspace_id: string;
  id: string;
  ticket_id: string;
  direction: MessageDirection;
  body: string;
  author_id: string | null;
  author_name: string | null;
  author_email: string | null;
  created_at: string;
}

export interface SupportTicketCommentsTable {
  workspace_id: string;
  id: string;
  ticket_id: string;
  body: string;
  author_id: string | null;
  author_name: string | null;
  created_at: string;
}

export interface SupportTables {
  support_queues: SupportQueuesTable;
  support_tickets: SupportTicketsTable;
  support_ticket_messages: SupportTicketMessagesTable;
  support_ticket_comments: SupportTicketCommentsTable;
}
