// The notifications resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';
import { MapOf } from '../../core/schema.ts';

const channel = Enum(['in_app', 'web_push', 'webhook'] as const);
const channels = Type.Array(channel, { examples: [['in_app', 'web_push']] });

export const NotificationSchema = Resource('Notification', {
  id: RecordId('ntf'),
  recipient_id: Text('usr_ada'),
  title: Text('Deal Northwind annual plan moved to negotiation'),
  body: NullableText('Amount: 1,250.00 USD'),
  source_type: NullableText('deal'),
  source_id: NullableText('deal_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
  event_type: NullableText('deal.stage_changed'),
  event_id: Nullable(RecordId('evt')),
  rule_id: Nullable(RecordId('nrule')),
  channels,
  skipped_channels: Type.Array(channel, { description: 'Channels a preference turned off.' }),
  status: Enum(['pending', 'delivered', 'suppressed', 'read', 'archived'] as const),
  metadata: MapOf(Type.Unknown(), {
    description: 'Free context for the client (a link, an icon).',
    examples: [{ link: '/deals/deal_01JDB3Y5Q0ZK8X4M2N7P9R6T3V' }],
  }),
  read_at: NullableTimestamp(),
  archived_at: NullableTimestamp(),
  ...timestamps,
});
export type Notification = Static<typeof NotificationSchema>;

export const NotificationPreferenceSchema = Resource('NotificationPreference', {
  id: RecordId('npref'),
  recipient_id: NullableText('usr_ada', 'null: the workspace-wide default.'),
  channel,
  event_type: Text('deal.stage_changed', '"*" for every event type.'),
  enabled: Type.Boolean(),
  ...timestamps,
});
export type NotificationPreference = Static<typeof NotificationPreferenceSchema>;

export const NotificationRuleSchema = Resource('NotificationRule', {
  id: RecordId('nrule'),
  name: Text('Deals entering negotiation'),
  event_type: Text('deal.stage_changed'),
  conditions: Type.Array(
    Shape({
      field: Text('stage'),
      operator: Enum(['equals', 'in'] as const),
      value: Type.Unknown({
        description: 'A scalar (equals) or a list of scalars (in).',
        examples: ['negotiation'],
      }),
    }),
  ),
  recipient_ids: Type.Array(Type.String(), { examples: [['usr_ada']] }),
  recipient_field: NullableText('data.owner_id'),
  channels,
  title: Text('Deal {{name}} moved to {{stage}}'),
  body: NullableText('Amount: {{amount_cents}} {{currency}}'),
  status: Enum(['active', 'disabled'] as const),
  ...timestamps,
});
export type NotificationRule = Static<typeof NotificationRuleSchema>;

const subscriptionProperties = {
  id: RecordId('nsub'),
  recipient_id: Text('usr_ada'),
  channel: Enum(['web_push', 'webhook'] as const),
  endpoint: Text('https://push.example.com/send/abc123'),
  status: Enum(['active', 'disabled'] as const),
  disabled_reason: NullableText('endpoint answered 410 Gone'),
  user_agent: NullableText('Mozilla/5.0'),
  ...timestamps,
};
export const NotificationSubscriptionSchema = Resource('NotificationSubscription', subscriptionProperties);
export type NotificationSubscription = Static<typeof NotificationSubscriptionSchema>;

/** create_notification_subscription's subscription: a webhook one carries its signing secret, once. */
export const NewNotificationSubscriptionSchema = Resource('NewNotificationSubscription', {
  ...subscriptionProperties,
  secret: Type.Optional(
    Text(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'Webhook channel only: the signing secret, shown only here.',
    ),
  ),
});
