// Shapes of product analytics, declared once: the ingest input (one event), the ingest answer and the
// Analytics Site resource; OpenAPI, MCP and the response checks derive from them.
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
} from '../../core/resource-schema.ts';
import { MapOf, Strict } from '../../core/schema.ts';
import { EVENT_NAME_TEXT } from '../analytics-governance/governance-schemas.ts';

const key = (example: string, description: string) =>
  Type.String({ minLength: 1, maxLength: 200, examples: [example], description });
const context = (example: string, description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 2000, examples: [example], description }));

/** One application event as a client sends it. */
/** The most events one ingest call may send. */
export const MAX_BATCH = 1000;

export const AppEventInput = Strict({
  app: key('shop', 'Developer-defined grouping key of the sending application.'),
  event_name: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: EVENT_NAME_TEXT,
    examples: ['order.created'],
    description:
      'Any 1 to 200 printable characters (pageview, $pageview). Dotted resource.action is the suggested style; with validation on (warn or enforce), only defined, dotted names pass.',
  }),
  object_type: key('order', 'Type of the object the event is about.'),
  object_id: key('ord_1042', 'ID of the object in the sending application.'),
  properties: Type.Optional(
    MapOf(Type.Unknown(), {
      description: 'Free properties: at most 32 KiB as JSON, nested at most 5 levels.',
      examples: [{ total_cents: 4200, currency: 'EUR' }],
    }),
  ),
  event_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      examples: ['5f0c6e1e-8d1e-4a43-9f57-0b1f1c2a9e11'],
      description: 'Client-generated ID: a retried event with the same ID is stored once.',
    }),
  ),
  occurred_at: Type.Optional(
    Type.String({
      format: 'date-time',
      examples: ['2026-11-22T17:05:00.000Z'],
      description:
        'When it happened; default the receipt time. At most 1 hour ahead, not older than retention.',
    }),
  ),
  user_id: context('usr_42', 'Your ID of the signed-in user.'),
  anonymous_id: context('anon_7f3a', 'ID of an anonymous visitor (the browser SDK keeps one).'),
  session_id: context('ses_01', 'Session ID (the browser SDK rotates it after 30 idle minutes).'),
  page_url: context('https://shop.example.com/checkout', 'URL of the page.'),
  referrer: context('https://www.example.org/', 'Referrer of the page.'),
  locale: context('en-GB', 'Locale of the user.'),
  timezone: context('Europe/London', 'IANA time zone of the user.'),
});

export const IngestResultSchema = Type.Object(
  {
    accepted: Type.Integer({ description: 'Events stored now.', examples: [998] }),
    duplicates: Type.Integer({
      description: 'Events whose event_id was already stored: counted once.',
      examples: [1],
    }),
    rejected: Type.Array(
      Shape({
        index: Type.Integer({ description: 'Position in events (0 for a single event).' }),
        event_id: Nullable(Type.String()),
        field_errors: Type.Array(Shape({ field: Type.String(), message: Type.String() })),
      }),
      { description: 'Events not stored, each with its problems.' },
    ),
  },
  { additionalProperties: false },
);

export const VALIDATION_MODES = ['off', 'warn', 'enforce'] as const;
export const ValidationModeSchema = Enum(VALIDATION_MODES, {
  description: 'Tracking-plan check at ingest: warn stores events with their problems, enforce rejects them.',
});

export const AnalyticsSiteSchema = Resource('AnalyticsSite', {
  id: RecordId('asite'),
  name: Text('Storefront'),
  site_key: Text(
    'wos_site_nq6YUMowxH4RNZzBCPQh-wT7z81vTx7xR6YTTfCAv-o',
    'Public key for browsers (wos_site_ and 43 characters): put it in the page.',
  ),
  previous_key: Nullable(
    Shape({
      site_key: Text('wos_site_khUVPHPtim9ao9p4Unw9B1DQbrbL15ptemCrdPdX5lg'),
      expires_at: Timestamp(),
    }),
    { description: 'The key last rotated out, working until expires_at; null when none works.' },
  ),
  allowed_origins: Type.Array(Type.String(), {
    examples: [['https://shop.example.com', 'https://*.example.com']],
    description: 'Origins that may send events; https://*.example.com matches subdomains only.',
  }),
  allowed_apps: Type.Array(Type.String(), {
    examples: [['shop']],
    description: 'Apps the key may send events for; empty: any app.',
  }),
  validation_mode: ValidationModeSchema,
  events_per_minute: Type.Integer({ examples: [6000] }),
  daily_quota: Type.Integer({ examples: [1_000_000] }),
  status: Enum(['active', 'paused'] as const),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  archived_at: NullableTimestamp(),
});

export type AnalyticsSite = Static<typeof AnalyticsSiteSchema>;

export const exampleSiteId = exampleId('asite');
