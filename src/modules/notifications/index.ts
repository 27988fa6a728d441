import type { ModuleDefinition } from '../../core/module.ts';
import {
  NotificationPreferenceSchema,
  NotificationRuleSchema,
  NotificationSchema,
  NotificationSubscriptionSchema,
} from './notification-schemas.ts';
import {
  createNotification,
  listNotifications,
  notificationRecord,
  updateNotification,
} from './notifications.ts';
import type { NotificationsTables } from './notifications-tables.ts';
import { listPreferences, patchPreference, preferenceRecord, upsertPreference } from './preferences.ts';
import { notificationDeliverJob, notificationSweep } from './push-delivery.ts';
import { ruleConsumer } from './rule-consumer.ts';
import { createRule, listRules, ruleRecord, updateRule } from './rules.ts';
import {
  createSubscription,
  listSubscriptions,
  subscriptionRecord,
  updateSubscription,
} from './subscriptions.ts';

const identity = { name: 'notifications', scopes: ['notifications:read', 'notifications:write'] } as const;

export const notificationsModule: ModuleDefinition<typeof identity, NotificationsTables> = {
  ...identity,
  operations: [
    listNotifications,
    createNotification,
    updateNotification,
    listRules,
    createRule,
    updateRule,
    listPreferences,
    upsertPreference,
    patchPreference,
    listSubscriptions,
    createSubscription,
    updateSubscription,
  ],
  recordTypes: [notificationRecord, ruleRecord, preferenceRecord, subscriptionRecord],
  events: [
    {
      name: 'notification.created',
      description: 'A notification was created (by create_notification or a rule); data is the notification.',
      schema: NotificationSchema,
    },
    {
      name: 'notification.updated',
      description: 'A notification was marked read or archived; data is the notification.',
      schema: NotificationSchema,
    },
    {
      name: 'notification_rule.created',
      description: 'A notification rule was created; data is the rule.',
      schema: NotificationRuleSchema,
    },
    {
      name: 'notification_rule.updated',
      description: 'A notification rule changed; data is the rule.',
      schema: NotificationRuleSchema,
    },
    {
      name: 'notification_preference.updated',
      description: 'A notification preference was set; data is the preference.',
      schema: NotificationPreferenceSchema,
    },
    {
      name: 'notification_subscription.created',
      description: 'A delivery subscription was created; data is the subscription (no keys or secret).',
      schema: NotificationSubscriptionSchema,
    },
    {
      name: 'notification_subscription.updated',
      description: 'A delivery subscription changed; data is the subscription.',
      schema: NotificationSubscriptionSchema,
    },
  ],
  eventConsumers: [ruleConsumer],
  jobs: [notificationDeliverJob],
  periodicTasks: [notificationSweep],
};
