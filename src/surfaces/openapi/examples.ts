// Example values for the OpenAPI reference, built from the schemas: a field's own `examples` first (the
// resource schemas carry them), then its enum, default or format, then a value that fits its name.
import type { TSchema } from '@sinclair/typebox';
import type { OperationDefinition } from '../../core/define-operation.ts';
import { exampleId } from '../../core/resource-schema.ts';

type Json = Record<string, any>;

const EXAMPLE_TIME = '2026-11-21T12:00:00.000Z';

/** Plausible text by field name, for fields without examples of their own. */
const byName: Record<string, unknown> = {
  name: 'Northwind renewal',
  title: 'Follow up on the renewal',
  subject: 'Cannot sign in since the update',
  summary: 'Call with Ada about the renewal',
  email: 'ada@example.com',
  phone: '+1 415 555 0100',
  description: 'Quarterly renewal for the design team.',
  body: 'Spoke with Ada; she wants the annual plan. Sending a quote on Monday.',
  notes: 'Prefers email; decision expected next week.',
  memo: 'November subscription revenue',
  query: 'renewal',
  key: 'design',
  slug: 'spring-launch',
  domain: 'example.com',
  website: 'https://example.com',
  url: 'https://hooks.example.com/wos',
  endpoint: 'https://push.example.com/send/abc123',
  timezone: 'Europe/Berlin',
  currency: 'USD',
  version: '1.4.0',
  color: '#3366ff',
  locale: 'en-US',
  default_locale: 'en-US',
  code: '4000',
  app: 'web',
  event_type: 'contact.created',
  file_name: 'contract.pdf',
  mime_type: 'application/pdf',
  location: 'Room 4.01',
  recurrence: 'FREQ=WEEKLY;BYDAY=MO',
  company_name: 'Northwind Traders',
  source: 'website',
  reason: 'Qualified on the discovery call.',
  completed_note: 'Sent the signed quote.',
  cursor: 'eyJvIjoibGlzdCIsImYiOiIwIiwiayI6IjEifQ',
  next_cursor: 'eyJvIjoibGlzdCIsImYiOiIwIiwiayI6IjEifQ',
  checksum_sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  user_agent: 'Mozilla/5.0',
  pattern: '^[a-z]+$',
};

/** Where example values come from besides a schema's own. */
export interface ExampleSources {
  /** The example ID of a field named <something>_id, from the record types (contact_id -> con_...). */
  ids: (field: string) => string | undefined;
  /** Example values of the operation's resource by field name: a request reuses them (name: Ada Lovelace). */
  fields?: Record<string, unknown>;
}

/** The example of each field of the resource a response carries, for the request example of the same call. */
export function resourceFieldExamples(response: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const value of Object.values<Json>(response.properties ?? {})) {
    const resource = value.type === 'array' ? value.items : value;
    for (const [name, field] of Object.entries<Json>(resource?.properties ?? {})) {
      const own =
        field.examples ?? (field.anyOf as Json[] | undefined)?.find((b) => b.type !== 'null')?.examples;
      if (Array.isArray(own) && !(name in out)) out[name] = own[0];
    }
  }
  return out;
}

function stringExample(schema: Json, name: string, ids: ExampleSources['ids']): string {
  if (schema.format === 'date-time') return EXAMPLE_TIME;
  if (schema.format === 'date') return '2026-12-01';
  if (schema.format === 'email') return 'ada@example.com';
  if (schema.format === 'uri') return 'https://example.com/resource';
  const known = byName[name];
  if (typeof known === 'string') return known;
  if (name.endsWith('_id')) return ids(name) ?? exampleId(name.slice(0, 3));
  if (name.endsWith('_at')) return EXAMPLE_TIME;
  if (name.endsWith('_date')) return '2026-12-01';
  const words = name.replace(/_/g, ' ').trim();
  return words ? `${words.charAt(0).toUpperCase()}${words.slice(1)} example` : 'example';
}

function numberExample(schema: Json, name: string): number {
  if (name.endsWith('_cents')) return 125000;
  if (name === 'limit') return 25;
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const guess = name.endsWith('_minutes') ? 60 : name === 'quantity' ? 2 : 1;
  if (minimum !== undefined && guess < minimum) return minimum;
  if (maximum !== undefined && guess > maximum) return maximum;
  return guess;
}

/** Whether a resource's example value can stand for an input field of this schema. */
function fits(schema: Json, value: unknown): boolean {
  if (schema.type === 'string') {
    return typeof value === 'string' && (!schema.pattern || new RegExp(schema.pattern, 'u').test(value));
  }
  if (schema.type === 'integer') return Number.isInteger(value);
  if (schema.type === 'number') return typeof value === 'number';
  if (schema.type === 'boolean') return typeof value === 'boolean';
  return false;
}

/**
 * An example value of a schema. Objects get every property (`requiredOnly`: only the required ones, for
 * request bodies, plus the first optional one when none is required).
 */
export function exampleOf(
  schema: TSchema | Json,
  sources: ExampleSources,
  name = '',
  requiredOnly = false,
): unknown {
  const s = schema as Json;
  const ids = sources;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const known = sources.fields?.[name];
  if (known !== undefined && known !== null && fits(s, known)) return known;
  const branches = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (branches) {
    const branch = branches.find((b) => b.type !== 'null') ?? branches[0]!;
    return exampleOf(branch, ids, name, requiredOnly);
  }
  switch (s.type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Json>;
      const required = new Set<string>(s.required ?? []);
      let names = Object.keys(properties).filter((key) => !requiredOnly || required.has(key));
      if (requiredOnly && names.length === 0) names = Object.keys(properties).slice(0, 1);
      if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
        return { example_key: exampleOf(s.additionalProperties, ids, 'value') };
      }
      return Object.fromEntries(
        names.map((key) => [key, exampleOf(properties[key]!, ids, key, requiredOnly)]),
      );
    }
    case 'array':
      return s.items
        ? Array.from({ length: Math.max(1, s.minItems ?? 1) }, () =>
            exampleOf(s.items, ids, name.replace(/s$/, ''), requiredOnly),
          )
        : [];
    case 'string':
      return stringExample(s, name, ids.ids);
    case 'integer':
    case 'number':
      return numberExample(s, name);
    case 'boolean':
      return name === 'enabled';
    case 'null':
      return null;
    default:
      return byName[name] ?? null;
  }
}

/**
 * The request example of an operation: the required fields of `body` (its input, or its REST body without
 * the path parameters), with the operation's declared example fields over them.
 */
export function requestExample(op: OperationDefinition, body: Json, sources: ExampleSources): Json {
  const declared = Object.entries(op.example ?? {}).filter(([name]) => name in (body.properties ?? {}));
  return { ...(exampleOf(body, sources, '', true) as Json), ...Object.fromEntries(declared) };
}
