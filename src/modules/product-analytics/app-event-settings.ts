import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { Strict } from '../../core/schema.ts';
import { ValidationModeSchema } from './analytics-schemas.ts';
import { ingestSettings, saveValidationMode } from './app-event-store.ts';

// Settings of API-key ingest in a workspace (a site carries its own validation mode). Retention is the
// operator's: WOS_APP_EVENT_RETENTION_DAYS, or the workspace's own set through the operator API.

const SettingsBody = Type.Object(
  {
    settings: Type.Object(
      {
        validation_mode: ValidationModeSchema,
        retention_days: Type.Integer({
          description:
            'Days raw events are kept: the operator sets it per workspace (entitlement app_event_retention_days).',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

async function settingsOf(ctx: Pick<OperationContext, 'db' | 'workspaceId' | 'config'>) {
  const settings = await ingestSettings(ctx.db, ctx.workspaceId);
  return {
    settings: {
      validation_mode: settings.validationMode,
      retention_days: settings.retentionDays ?? ctx.config.appEventRetentionDays,
    },
  };
}

export const getAppEventSettings = defineOperation({
  name: 'get_app_event_settings',
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  summary: 'Read the ingest settings of application events',
  description:
    'Returns how API-key ingest checks events against tracking plans (validation_mode; sites have their own) and how many days raw events are kept.',
  input: Strict({}),
  rest: { method: 'GET', path: '/v1/insights/app-events/settings' },
  responseKey: 'settings',
  response: SettingsBody,
  handler: async (ctx) => ({ body: await settingsOf(ctx) }),
});

export const updateAppEventSettings = defineOperation({
  name: 'update_app_event_settings',
  module: 'product_analytics_bi',
  scopes: ['analytics:write'],
  kind: 'update',
  extension: true,
  summary: 'Set the validation mode of API-key ingest',
  description:
    'Sets validation_mode for events sent with API keys: off (default), warn (stored with their tracking-plan problems as warnings) or enforce (events failing validate_event rules are rejected by index).',
  input: Strict({ validation_mode: ValidationModeSchema }),
  rest: { method: 'PATCH', path: '/v1/insights/app-events/settings' },
  responseKey: 'settings',
  response: SettingsBody,
  handler: async (ctx, input) => {
    const before = await ingestSettings(ctx.db, ctx.workspaceId);
    await saveValidationMode(ctx.db, ctx.workspaceId, input.validation_mode, ctx.now);
    ctx.audit({
      targetType: 'app_event_settings',
      targetId: ctx.workspaceId,
      changedFields: before.validationMode === input.validation_mode ? [] : ['validation_mode'],
    });
    return { body: await settingsOf(ctx) };
  },
});
