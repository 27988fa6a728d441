// The tracking-plan check of application events, shared by validate_event and app-event ingest (which
// checks whole batches: each app's plan, definitions and properties are loaded once per batch).
import type { Kysely } from 'kysely';
import type { FieldError } from '../../core/errors.ts';
import type { DB } from '../../db/tables.ts';
import { EVENT_NAME_PATTERN } from './governance-schemas.ts';
import { activePlan, eventsByName, propertiesByName, toEventDefinition } from './governance-store.ts';
import type { AnalyticsEventsTable, AnalyticsTrackingPlansTable } from './governance-tables.ts';
import { compiled, describeErrors, eventSchema } from './property-schema.ts';

export interface CheckedEvent {
  app: string;
  event_name: string;
  properties?: Record<string, unknown>;
}

export interface EventCheck {
  errors: FieldError[];
  warnings: FieldError[];
  definition: AnalyticsEventsTable | undefined;
  plan: AnalyticsTrackingPlansTable | undefined;
}

type Plan = AnalyticsTrackingPlansTable | undefined;

const DOTTED = new RegExp(EVENT_NAME_PATTERN);
const NOT_DOTTED =
  'is not a dotted name (resource.action, as order.created): event definitions and tracking plans take only those';

/**
 * Checks events against the definitions of their app and a tracking plan: `plan` when given (validate_event's
 * tracking_plan_id), else the app's active plan. Unknown event names, events outside the plan, missing,
 * mistyped or unknown properties are errors; a deprecated event is a warning.
 */
export async function checkEvents(
  db: Kysely<DB>,
  workspaceId: string,
  events: CheckedEvent[],
  plan?: Plan,
): Promise<EventCheck[]> {
  const namesByApp = new Map<string, Set<string>>();
  for (const event of events) {
    const names = namesByApp.get(event.app) ?? new Set<string>();
    names.add(event.event_name);
    namesByApp.set(event.app, names);
  }
  const plans = new Map<string, Plan>();
  const definitions = new Map<string, Map<string, AnalyticsEventsTable>>();
  for (const [app, names] of namesByApp) {
    plans.set(app, plan ?? (await activePlan(db, workspaceId, app)));
    definitions.set(app, await eventsByName(db, workspaceId, app, [...names]));
  }
  const propertyNames = new Set<string>();
  for (const byName of definitions.values()) {
    for (const row of byName.values()) {
      for (const property of toEventDefinition(row).properties) propertyNames.add(property.name);
    }
  }
  const properties = await propertiesByName(db, workspaceId, [...propertyNames]);

  return events.map((event) => {
    const errors: FieldError[] = [];
    const warnings: FieldError[] = [];
    const eventPlan = plans.get(event.app);
    const definition = definitions.get(event.app)?.get(event.event_name);
    if (!definition) {
      // Ingest takes any printable name; only dotted ones can be defined, so say which rule the name broke.
      const message = DOTTED.test(event.event_name)
        ? `is not a defined event of app ${event.app}`
        : NOT_DOTTED;
      errors.push({ field: 'event_name', message });
      return { errors, warnings, definition, plan: eventPlan };
    }
    if (eventPlan && !(JSON.parse(eventPlan.events) as string[]).includes(event.event_name)) {
      errors.push({ field: 'event_name', message: 'is not in the tracking plan' });
    }
    if (definition.status === 'deprecated') warnings.push({ field: 'event_name', message: 'is deprecated' });
    const validate = compiled(eventSchema(toEventDefinition(definition).properties, properties));
    if (!validate(event.properties ?? {})) errors.push(...describeErrors(validate.errors));
    return { errors, warnings, definition, plan: eventPlan };
  });
}
