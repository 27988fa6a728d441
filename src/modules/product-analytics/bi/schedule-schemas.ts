// The scheduled artifact as the API returns it and the rule fields a create or update takes, declared once.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  exampleId,
  Nullable,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
} from '../../../core/resource-schema.ts';
import { RUN_STATUSES } from '../../../core/run-resource.ts';
import { Strict } from '../../../core/schema.ts';
import { CADENCES, WEEKDAYS } from './schedule-rules.ts';

export const TARGET_TYPES = ['report', 'export', 'query', 'insight_view'] as const;
export const SCHEDULE_STATUSES = ['active', 'paused'] as const;

const capitalized = CADENCES.map((c) => `${c[0]!.toUpperCase()}${c.slice(1)}`);

/** Rule fields with their input constraints; ruleFrom (schedule-rules.ts) checks how they combine. */
export const ruleFields = {
  cadence: Enum([...CADENCES, ...capitalized], {
    description:
      'How often it runs: hourly, daily, weekly or monthly (the spec writes Hourly, Daily, Weekly, Monthly; ' +
      'both spellings are accepted, stored lower-case).',
  }),
  minute: Type.Integer({ minimum: 0, maximum: 59, description: 'Minute of the local hour; default 0.' }),
  hour: Type.Integer({
    minimum: 0,
    maximum: 23,
    description: 'Local hour, 0-23: required for daily, weekly and monthly; refused for hourly.',
  }),
  weekday: Enum(WEEKDAYS, { description: 'Weekly only (required there): the local weekday.' }),
  day_of_month: Type.Union([Type.Integer({ minimum: 1, maximum: 31 }), Type.Literal('last')], {
    description:
      'Monthly only (required there): 1-31, or "last" (the last day of every month). A day the month lacks ' +
      '(31 in April, 29-31 in February) runs on its last day.',
  }),
  timezone: Type.String({
    minLength: 1,
    maxLength: 100,
    examples: ['Europe/Berlin'],
    description:
      'IANA time zone of hour and minute; default UTC. A local time skipped by daylight saving runs at ' +
      'the next valid minute; one that happens twice runs once.',
  }),
  status: Enum(SCHEDULE_STATUSES, {
    description: 'active (default) or paused: a paused schedule never runs.',
  }),
};

export const TargetInput = Strict({
  type: Enum(TARGET_TYPES, { description: 'What it refreshes.' }),
  // The example is a report's ID, as the type's example is report.
  id: Type.String({
    minLength: 1,
    maxLength: 255,
    examples: [exampleId('birep')],
    description: 'The ID of that object in this workspace.',
  }),
});

export const ScheduledArtifactSchema = Resource(
  'BiScheduledArtifact',
  {
    id: RecordId('bisch'),
    name: Text('Weekly pipeline refresh'),
    target: Shape({
      type: Enum(TARGET_TYPES),
      id: RecordId('birep', 'The scheduled object (a report, export, saved query or insight view).'),
    }),
    cadence: Enum(CADENCES),
    minute: Type.Integer({ minimum: 0, maximum: 59 }),
    hour: Nullable(Type.Integer({ minimum: 0, maximum: 23 }), { description: 'null for hourly.' }),
    weekday: Nullable(Enum(WEEKDAYS), { description: 'Weekly only.' }),
    day_of_month: Nullable(Type.Union([Type.Integer({ minimum: 1, maximum: 31 }), Type.Literal('last')]), {
      description: 'Monthly only: 1-31 or last.',
    }),
    timezone: Text('Europe/Berlin', 'IANA time zone of hour and minute.'),
    status: Enum(SCHEDULE_STATUSES),
    next_run_at: NullableTimestamp('The next occurrence (UTC); null while paused.'),
    last_run_at: NullableTimestamp('When the scheduler last started a run of it.'),
    last_run_id: Nullable(RecordId('run'), { description: 'That run: GET /v1/bi/runs/{run_id}.' }),
    last_status: Nullable(Enum(RUN_STATUSES), {
      description:
        'Status of the last run: queued, running, completed, failed (or canceled); null before any.',
    }),
    last_error: Nullable(Shape({ code: Type.String(), message: Type.String() }), {
      description: 'Why the last run failed (e.g. the owner credential was revoked); null otherwise.',
    }),
    owner_credential_id: RecordId('key', 'The credential that created it: refreshes run on its behalf.'),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    archived_at: NullableTimestamp('Set when archived (archive_bi_object): it no longer runs.'),
  },
  {
    description:
      'A BI artifact (saved query, report, export or insight view) refreshed on a schedule by a run on ' +
      "its owner's behalf.",
  },
);
export type ScheduledArtifact = Static<typeof ScheduledArtifactSchema>;
