// The activity record, declared once (docs/architecture.md, "Records"): its row, the resource the API
// returns (and activity.logged carries), the mapper, the create input and the searched columns derive from it.
import { Type } from '@sinclair/typebox';
import { defineRecord, type RecordOf } from '../../core/define-record.ts';
import { computed, oneOf, text, timestamp } from '../../core/record-fields.ts';
import { Enum, Nullable, RecordId, Shape, Text } from '../../core/resource-schema.ts';

export const activityTypes = ['note', 'call', 'email', 'meeting', 'agent_action'] as const;
export type ActivityType = (typeof activityTypes)[number];

export const activityRecord = defineRecord({
  type: 'activity',
  module: 'activity_log',
  table: 'activities',
  prefix: 'act',
  title: 'Activity',
  collection: '/v1/activities',
  key: 'activity',
  readScope: 'activity:read',
  fields: {
    type: oneOf(activityTypes).input(),
    summary: text({ example: 'Call with Ada about the renewal', min: 1, max: 1000 }).search().input(),
    body: text({ example: 'She wants the annual plan; quote by Monday.', max: 100_000 })
      .nullable()
      .search()
      .input(),
    related_resource_type: text({ example: 'contact' })
      .nullable()
      .input({ schema: Enum(['contact', 'company', 'deal', 'task', 'support_ticket'] as const) }),
    // Any record type's ID (checkRelatedRecord), so not a ref.
    related_resource_id: text({ example: 'con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V' })
      .nullable()
      .input({ schema: Type.String({ minLength: 1 }) }),
    occurred_at: timestamp().input({ optional: true, description: 'Default now.' }),
    actor_type: text().hidden(),
    actor_credential_id: text().nullable().hidden(),
    actor: computed(
      Shape({
        type: Text('api_key', 'The kind of credential that logged it.'),
        credential_id: Nullable(RecordId('key')),
      }),
    ),
  },
  compute: {
    actor: (row) => ({ type: row.actor_type, credential_id: row.actor_credential_id }),
  },
});
export type Activity = RecordOf<typeof activityRecord>;
