// Notification rules are an outbox consumer (src/core/outbox-relay.ts): the relay hands them the events some
// active rule watches, and the notifications (with their notification.created events, deliveries and audit
// events) commit together with the relay's record of the event, so each event fires a rule once.
import { type Kysely, sql } from 'kysely';
import { auditRow, insertAuditEvents, systemWrite } from '../../core/audit.ts';
import { isModuleEnabledIn } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { mintedBefore } from '../../core/ids.ts';
import type { EventConsumer } from '../../core/module.ts';
import { insertOutboxEvents, outboxRow } from '../../core/outbox.ts';
import { reusableQuery } from '../../db/reusable-query.ts';
import type { AuditEventsTable, DB, OutboxEventsTable } from '../../db/tables.ts';
import { insertNotification, type RuleCondition, toRule } from './notification-store.ts';

/** The value at a dotted path; only own properties count, so `constructor` or `__proto__` is absent. */
export function valueAt(data: unknown, path: string): unknown {
  let value: unknown = data;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function matches(conditions: RuleCondition[], data: unknown): boolean {
  return conditions.every((condition) => {
    const value = valueAt(data, condition.field);
    return condition.operator === 'equals'
      ? value === condition.value
      : (condition.value as unknown[]).includes(value);
  });
}

/** {{path}} placeholders filled from the event data; missing values become empty. */
export function render(template: string, data: unknown): string {
  return template.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (_match, path: string) => {
    const value = valueAt(data, path);
    return value === undefined || value === null
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  });
}

// Run by the relay for every batch of a workspace: compiled once per transaction (see reusableQuery).
const activeRules = reusableQuery((db) =>
  db
    .selectFrom('notification_rules')
    .selectAll()
    .where('workspace_id', '=', '')
    .where('status', '=', sql.lit('active'))
    .orderBy('id'),
);

const watchedTypes = reusableQuery((db) =>
  db
    .selectFrom('notification_rules')
    .select('event_type')
    .distinct()
    .where('workspace_id', '=', '')
    .where('status', '=', sql.lit('active')),
);

async function applyRules(
  db: Kysely<DB>,
  workspaceId: string,
  events: OutboxEventsTable[],
  clock: Clock,
): Promise<void> {
  const names = [...new Set(events.map((e) => e.name))];
  const rows = (await activeRules(db, [workspaceId])).filter((row) => names.includes(row.event_type));
  if (rows.length === 0 || !(await isModuleEnabledIn(db, workspaceId, 'notifications'))) return;
  const rules = rows.map(toRule);
  const now = clock.now().toISOString();
  const audits: AuditEventsTable[] = [];
  const created: OutboxEventsTable[] = [];
  for (const event of events) {
    const data = JSON.parse(event.payload) as unknown;
    // A rule fires for the events that came after it, however late the relay hands them on.
    const fired = rules.filter(
      (r) => r.event_type === event.name && mintedBefore(r.id, event.id) && matches(r.conditions, data),
    );
    for (const rule of fired) {
      const fromField = rule.recipient_field ? valueAt(data, rule.recipient_field) : undefined;
      const recipients = new Set([
        ...rule.recipient_ids,
        ...(typeof fromField === 'string' && fromField ? [fromField] : []),
      ]);
      for (const recipient of recipients) {
        const notification = await insertNotification(
          db,
          workspaceId,
          {
            recipient_id: recipient,
            title: render(rule.title, data).slice(0, 500) || rule.name,
            body: rule.body === null ? null : render(rule.body, data).slice(0, 5000),
            source_type: event.target_type,
            source_id: event.target_id,
            event_type: event.name,
            event_id: event.id,
            rule_id: rule.id,
            channels: rule.channels,
          },
          now,
        );
        const write = systemWrite({
          workspaceId,
          requestId: event.request_id,
          occurredAt: now,
          actorName: `notification rule ${rule.id}`,
          tool: 'notification_rule',
          defaultAction: 'create',
          causedBy: event.id,
        });
        audits.push(
          auditRow(write, {
            targetType: 'notification',
            targetId: notification.id,
            changedFields: ['recipient_id', 'title', 'body', 'channels'],
          }),
        );
        created.push(
          outboxRow(workspaceId, event.request_id, now, {
            name: 'notification.created',
            targetType: 'notification',
            targetId: notification.id,
            data: notification,
          }),
        );
      }
    }
  }
  await insertAuditEvents(db, audits);
  // The relay hands these on too (webhook endpoints), like any other event.
  await insertOutboxEvents(db, created);
}

export const ruleConsumer: EventConsumer = {
  name: 'notification_rules',
  subscribes: async (db, workspaceId) => (await watchedTypes(db, [workspaceId])).map((row) => row.event_type),
  consume: (db, workspaceId, events, clock) => applyRules(db, workspaceId, events, clock),
};
