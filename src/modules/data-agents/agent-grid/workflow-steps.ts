// A workflow's trigger and steps: their input schemas and the checks made when a workflow is saved. Steps
// call a registry tool or invoke an agent; their arguments may take values from the run input or from an
// earlier step's output with {"$from": "input.<path>"} or {"$from": "steps.<key>.output.<path>"}. The key
// was "$ref", which OpenAPI tools take for a JSON Reference in an example: it is still read, stored as $from.
import { type Static, Type } from '@sinclair/typebox';
import type { FieldError } from '../../../core/errors.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { cadences, type Step, type Trigger, triggerTypes, weekdays } from './agent-grid-schemas.ts';
import { jsonInput, keyInput } from './agent-grid-shared.ts';

export const triggerInput = Strict(
  {
    type: Enum(triggerTypes),
    event_type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'event: a domain event name (contact.created).',
      }),
    ),
    cadence: Type.Optional(Enum(cadences, { description: 'schedule.' })),
    time: Type.Optional(
      Type.String({
        pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
        examples: ['09:00'],
        description: 'UTC HH:MM.',
      }),
    ),
    day_of_week: Type.Optional(Enum(weekdays, { description: 'weekly.' })),
    day_of_month: Type.Optional(Type.Integer({ minimum: 1, maximum: 31, description: 'monthly.' })),
  },
  {
    description: 'manual; event with event_type; schedule with cadence (+ time, day_of_week, day_of_month).',
  },
);

export const stepInput = Strict({
  key: keyInput('Unique in the workflow.', 'find_contact'),
  kind: Enum(['tool', 'agent'] as const),
  tool: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['search_contacts'] })),
  agent_key: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  agent_version: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Pins a version; default the latest.' }),
  ),
  arguments: Type.Optional(
    jsonInput(
      'Tool input or agent input; {"$from": "steps.<key>.output.<path>"} or {"$from": "input.<path>"}.',
    ),
  ),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const stepsInput = Type.Array(stepInput, { minItems: 1, maxItems: 50 });

export type TriggerInput = Static<typeof triggerInput>;
export type StepInput = Static<typeof stepInput>;

const CONFIG_FIELDS = ['event_type', 'cadence', 'time', 'day_of_week', 'day_of_month'] as const;
const ALLOWED: Record<string, readonly string[]> = {
  manual: [],
  event: ['event_type'],
  hourly: ['cadence'],
  daily: ['cadence', 'time'],
  weekly: ['cadence', 'time', 'day_of_week'],
  monthly: ['cadence', 'time', 'day_of_month'],
};

/** The stored trigger (every field present, null where unused), or the field errors of the input. */
export function checkTrigger(
  trigger: TriggerInput,
  isEventType: (name: string) => boolean,
): { trigger: Trigger; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const mode = trigger.type === 'schedule' ? trigger.cadence : trigger.type;
  if (trigger.type === 'event' && !trigger.event_type) {
    errors.push({ field: 'trigger.event_type', message: 'is required for an event trigger' });
  }
  if (trigger.event_type && !isEventType(trigger.event_type)) {
    errors.push({
      field: 'trigger.event_type',
      message: `"${trigger.event_type}" is not an event this service emits`,
    });
  }
  if (trigger.type === 'schedule' && !trigger.cadence) {
    errors.push({ field: 'trigger.cadence', message: 'is required for a schedule trigger' });
  }
  if (mode === 'weekly' && !trigger.day_of_week) {
    errors.push({ field: 'trigger.day_of_week', message: 'is required for a weekly schedule' });
  }
  if (mode === 'monthly' && !trigger.day_of_month) {
    errors.push({ field: 'trigger.day_of_month', message: 'is required for a monthly schedule' });
  }
  // A schedule without its cadence is reported once, not once per field it carries.
  const allowed = mode ? (ALLOWED[mode] ?? []) : CONFIG_FIELDS.slice(1);
  for (const field of CONFIG_FIELDS) {
    if (trigger[field] !== undefined && !allowed.includes(field)) {
      errors.push({
        field: `trigger.${field}`,
        message: `does not apply to a ${mode ?? trigger.type} trigger`,
      });
    }
  }
  const scheduled = trigger.type === 'schedule' && mode !== 'hourly';
  return {
    errors,
    trigger: {
      type: trigger.type,
      event_type: trigger.event_type ?? null,
      cadence: trigger.cadence ?? null,
      time: scheduled ? (trigger.time ?? '00:00') : null,
      day_of_week: trigger.day_of_week ?? null,
      day_of_month: trigger.day_of_month ?? null,
    },
  };
}

/** What the step checks need to know about the service and the workspace. */
export interface StepEnvironment {
  /** The input field names of a registry tool, or undefined when no such tool exists. */
  toolInputs(name: string): readonly string[] | undefined;
  /** The versions of an agent of the workspace (empty: exists, none taken), or undefined when unknown. */
  agentVersions(key: string): Promise<{ status: string; latest: number } | undefined>;
}

const REF = /^(input|steps\.([a-z][a-z0-9_]*)\.output)(\.[A-Za-z0-9_-]+)*$/;

/** The template key, and the one it replaced (read on input, never written). */
const FROM = '$from';
const FORMER = '$ref';

/** Every template ({"$from": ...} or the former {"$ref": ...}) in a value, with its path from the arguments. */
function* refsOf(value: unknown, path: string): Generator<{ path: string; ref: unknown; alone: boolean }> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* refsOf(item, `${path}[${i}]`);
  } else if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (FROM in object || FORMER in object) {
      const ref = FROM in object ? object[FROM] : object[FORMER];
      yield { path, ref, alone: Object.keys(object).length === 1 };
      return;
    }
    for (const [key, item] of Object.entries(object)) yield* refsOf(item, `${path}.${key}`);
  }
}

/** A value with each template written {"$from": ...}: a former {"$ref": ...} is renamed (input, old rows). */
export function withFromTemplates<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withFromTemplates) as T;
  if (!value || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === FORMER) return { [FROM]: entries[0]![1] } as T;
  return Object.fromEntries(entries.map(([key, item]) => [key, withFromTemplates(item)])) as T;
}

/** Stored steps as read: templates written {"$from": ...} (steps saved before the rename hold $ref). */
export const readSteps = (steps: Step[]): Step[] =>
  steps.map((step) => ({ ...step, arguments: withFromTemplates(step.arguments) }));

/** The stored steps (every field present), or the field errors naming each step at fault. */
export async function checkSteps(
  steps: readonly StepInput[],
  env: StepEnvironment,
): Promise<{ steps: Step[]; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const error = (field: string, message: string) => errors.push({ field, message });
  const position = new Map<string, number>();
  steps.forEach((step, i) => {
    if (position.has(step.key))
      error(`steps[${i}].key`, `"${step.key}" is the key of steps[${position.get(step.key)}]`);
    else position.set(step.key, i);
  });
  for (const [i, step] of steps.entries()) {
    const at = `steps[${i}]`;
    if (step.kind === 'tool') {
      if (step.agent_key !== undefined) error(`${at}.agent_key`, 'is for agent steps');
      if (step.agent_version !== undefined) error(`${at}.agent_version`, 'is for agent steps');
      if (!step.tool) error(`${at}.tool`, 'is required for a tool step');
      else {
        const inputs = env.toolInputs(step.tool);
        if (!inputs) error(`${at}.tool`, `"${step.tool}" is not a tool of this service`);
        else {
          for (const name of Object.keys(step.arguments ?? {})) {
            if (!inputs.includes(name)) error(`${at}.arguments.${name}`, `is not an input of ${step.tool}`);
          }
        }
      }
    } else {
      if (step.tool !== undefined) error(`${at}.tool`, 'is for tool steps');
      if (!step.agent_key) error(`${at}.agent_key`, 'is required for an agent step');
      else {
        const agent = await env.agentVersions(step.agent_key);
        if (!agent) error(`${at}.agent_key`, `no agent has the key "${step.agent_key}" in this workspace`);
        else if (agent.status === 'archived')
          error(`${at}.agent_key`, `the agent "${step.agent_key}" is archived`);
        else if (step.agent_version !== undefined && step.agent_version > agent.latest) {
          error(`${at}.agent_version`, `the agent "${step.agent_key}" has no version ${step.agent_version}`);
        }
      }
    }
    for (const { path, ref, alone } of refsOf(step.arguments ?? {}, `${at}.arguments`)) {
      const match = typeof ref === 'string' ? REF.exec(ref) : null;
      if (!alone || !match) {
        error(path, 'a template holds only "$from": "input.<path>" or "steps.<key>.output.<path>"');
        continue;
      }
      const target = match[2];
      if (target === undefined) continue;
      const targetAt = position.get(target);
      if (targetAt === undefined) error(path, `refers to "${target}", which is no step of this workflow`);
      else if (targetAt >= i) {
        error(
          path,
          `refers to "${target}", which does not run before this step (only earlier outputs exist)`,
        );
      }
    }
  }
  return {
    errors,
    steps: steps.map((step) => ({
      key: step.key,
      kind: step.kind,
      tool: step.tool ?? null,
      agent_key: step.agent_key ?? null,
      agent_version: step.agent_version ?? null,
      arguments: withFromTemplates(step.arguments ?? {}),
      description: step.description ?? null,
    })),
  };
}
