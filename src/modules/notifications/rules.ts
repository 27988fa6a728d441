import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { findEventTypeByKey } from '../integrations/integrations-store.ts';
import { NotificationRuleSchema } from './notification-schemas.ts';
import { CHANNELS, findRow, toRule } from './notification-store.ts';
import { channels, recipientId } from './notifications.ts';
import type { NotificationRulesTable } from './notifications-tables.ts';
import { insertRule, rulesPage, updateRuleRow } from './settings-store.ts';

export const ruleRecord = defineRecordType({
  type: 'notification_rule',
  module: 'notifications',
  table: 'notification_rules',
  collection: '/v1/notifications/rules',
  key: 'rule',
  readScope: 'notifications:read',
  schema: NotificationRuleSchema,
  toResource: toRule,
});

const scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
const path = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$', maxLength: 200 });
const condition = Type.Union([
  Strict({ field: path, operator: Type.Literal('equals'), value: scalar }),
  Strict({
    field: path,
    operator: Type.Literal('in'),
    value: Type.Array(scalar, { minItems: 1, maxItems: 100 }),
  }),
]);
const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  event_type: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'From list_integration_event_types, not notification.*.',
  }),
  conditions: Type.Array(condition, {
    maxItems: 20,
    description: 'All must hold; field is a dotted path in the event data.',
  }),
  recipient_ids: Type.Array(recipientId, { maxItems: 100, uniqueItems: true }),
  recipient_field: Type.Union([path, Type.Null()], {
    description: 'Event data path holding a recipient ID, e.g. assignee_id.',
  }),
  channels,
  title: Type.String({
    minLength: 1,
    maxLength: 500,
  }),
  body: Type.Union([Type.String({ maxLength: 5000 }), Type.Null()]),
  status: Enum(['active', 'disabled'] as const),
};

async function checkEventType(ctx: OperationContext, eventType: string): Promise<void> {
  if (eventType.startsWith('notification')) {
    throw validationFailed([
      { field: 'event_type', message: 'cannot be a notification event (a rule must not trigger itself)' },
    ]);
  }
  if (ctx.eventTypes.has(eventType)) return;
  const custom = await findEventTypeByKey(ctx.db, ctx.workspaceId, eventType);
  if (!custom)
    throw validationFailed([
      { field: 'event_type', message: 'is not in the event catalogue (list_integration_event_types)' },
    ]);
}

function checkRecipients(ids: string[], field: string | null): void {
  if (ids.length === 0 && !field) {
    throw validationFailed([
      { field: 'recipient_ids', message: 'send recipient_ids and/or recipient_field' },
    ]);
  }
}

export const listRules = defineOperation({
  name: 'list_notification_rules',
  module: 'notifications',
  scopes: ['notifications:read'],
  kind: 'read',
  summary: 'List notification rules',
  description: 'Lists notification rules, newest first, filtered by event_type and status.',
  input: Strict({
    event_type: Type.Optional(fields.event_type),
    status: Type.Optional(fields.status),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/notifications/rules' },
  responseKey: 'rules',
  handler: async (ctx, input) => {
    const page = await rulesPage(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_notification_rules', input),
    );
    return { body: listBody('rules', page) };
  },
});

export const createRule = defineOperation({
  name: 'create_notification_rule',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'create',
  example: { recipient_ids: ['usr_ada'] },
  creates: 'notification_rule',
  summary: 'Create a notification rule',
  description:
    'Creates a rule: when an event of event_type occurs and its conditions hold, a notification is created in the same transaction for each recipient (recipient_ids plus the ID at recipient_field), from title and body templates ({{path}} inserts event data). Preferences apply. Emits notification_rule.created.',
  input: Strict({
    name: fields.name,
    event_type: fields.event_type,
    conditions: Type.Optional(fields.conditions),
    recipient_ids: Type.Optional(fields.recipient_ids),
    recipient_field: Type.Optional(fields.recipient_field),
    channels: Type.Optional(fields.channels),
    title: fields.title,
    body: Type.Optional(fields.body),
    status: Type.Optional(fields.status),
  }),
  rest: { method: 'POST', path: '/v1/notifications/rules' },
  responseKey: 'rule',
  handler: async (ctx, input) => {
    await checkEventType(ctx, input.event_type);
    checkRecipients(input.recipient_ids ?? [], input.recipient_field ?? null);
    const row: NotificationRulesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('nrule'),
      name: input.name,
      event_type: input.event_type,
      conditions: JSON.stringify(input.conditions ?? []),
      recipient_ids: JSON.stringify(input.recipient_ids ?? []),
      recipient_field: input.recipient_field ?? null,
      channels: JSON.stringify(input.channels ?? CHANNELS),
      title_template: input.title,
      body_template: input.body ?? null,
      status: input.status ?? 'active',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertRule(ctx.db, row);
    const rule = toRule(row);
    ctx.audit({ targetType: 'notification_rule', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'notification_rule.created',
      targetType: 'notification_rule',
      targetId: row.id,
      data: rule,
    });
    return { body: { rule }, createdId: row.id };
  },
});

const RULE_FIELDS = [
  'name',
  'event_type',
  'conditions',
  'recipient_ids',
  'recipient_field',
  'channels',
  'title',
  'body',
  'status',
];

export const updateRule = defineOperation({
  name: 'update_notification_rule',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'update',
  summary: 'Update a notification rule',
  description:
    "Changes a rule's name, event_type, conditions, recipients, channels, templates or status (disabled rules create nothing); lists are replaced. Emits notification_rule.updated.",
  input: Strict({
    rule_id: Type.String({ minLength: 1 }),
    name: Type.Optional(fields.name),
    event_type: Type.Optional(fields.event_type),
    conditions: Type.Optional(fields.conditions),
    recipient_ids: Type.Optional(fields.recipient_ids),
    recipient_field: Type.Optional(fields.recipient_field),
    channels: Type.Optional(fields.channels),
    title: Type.Optional(fields.title),
    body: Type.Optional(fields.body),
    status: Type.Optional(fields.status),
  }),
  rest: { method: 'PATCH', path: '/v1/notifications/rules/{rule_id}' },
  responseKey: 'rule',
  handler: async (ctx, input) => {
    requireSomeField(input, RULE_FIELDS);
    const row = await findRow(ctx.db, 'notification_rules', ctx.workspaceId, input.rule_id);
    if (!row) throw notFound('notification rule');
    if (input.event_type !== undefined) await checkEventType(ctx, input.event_type);
    const proposed = {
      ...input,
      conditions: input.conditions && JSON.stringify(input.conditions),
      recipient_ids: input.recipient_ids && JSON.stringify(input.recipient_ids),
      channels: input.channels && JSON.stringify(input.channels),
      title_template: input.title,
      body_template: input.body,
    };
    const { changes, changed } = diffFields(row, proposed, [
      'name',
      'event_type',
      'conditions',
      'recipient_ids',
      'recipient_field',
      'channels',
      'title_template',
      'body_template',
      'status',
    ]);
    const next = changed.length ? { ...row, ...changes, updated_at: ctx.now } : row;
    checkRecipients(JSON.parse(next.recipient_ids), next.recipient_field);
    if (changed.length) {
      await updateRuleRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    const rule = toRule(next);
    ctx.audit({ targetType: 'notification_rule', targetId: row.id, changedFields: changed });
    if (changed.length)
      ctx.emit({
        name: 'notification_rule.updated',
        targetType: 'notification_rule',
        targetId: row.id,
        data: rule,
      });
    return { body: { rule } };
  },
});
