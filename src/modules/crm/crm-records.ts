// The CRM's records, each declared once (docs/architecture.md, "Records"): their rows, the resources the
// API returns (and the events carry), the mappers, the create and patch inputs and the searched columns
// all derive from these. The ledger's records are in ledger-records.ts.
import { Type } from '@sinclair/typebox';
import { defineRecord, type RecordOf, type RowOf } from '../../core/define-record.ts';
import {
  computed,
  currency,
  fieldValues,
  int,
  money,
  number,
  oneOf,
  ref,
  text,
  timestamp,
} from '../../core/record-fields.ts';
import { Nullable, NullableTimestamp, RecordId, Shape, Text } from '../../core/resource-schema.ts';

/** custom_fields of a record: scalar values, optional on create. */
export const customFields = () => fieldValues().input();
/** custom_fields an update merges into the stored ones. */
export const mergedCustomFields = () =>
  customFields().editable('merge', { description: 'Merged; null removes a key.' });

export const contactRecord = defineRecord({
  type: 'contact',
  module: 'crm',
  table: 'contacts',
  prefix: 'con',
  title: 'Contact',
  collection: '/v1/contacts',
  key: 'contact',
  readScope: 'crm:read',
  fields: {
    name: text({ example: 'Ada Lovelace', min: 1, max: 500 }).search().input(),
    email: text({ example: 'ada@example.com', format: 'email', max: 320 }).nullable().search().input(),
    phone: text({ example: '+1 415 555 0100', max: 64 }).nullable().input(),
    company_id: ref('company', 'cmp', 'The linked company, if any.')
      .nullable()
      .input({ schema: Type.String({ minLength: 1 }) }),
    company_name: text({ example: 'Northwind Traders', max: 500 }).nullable().search().input(),
    notes: text({ example: 'Prefers email; decision expected next week.', max: 20_000 })
      .nullable()
      .search()
      .input(),
  },
});
export type Contact = RecordOf<typeof contactRecord>;

export const companyRecord = defineRecord({
  type: 'company',
  module: 'crm',
  table: 'companies',
  prefix: 'cmp',
  title: 'Company',
  collection: '/v1/companies',
  key: 'company',
  readScope: 'crm:read',
  fields: {
    name: text({ example: 'Northwind Traders', min: 1, max: 500 }).search().input(),
    domain: text({ example: 'northwind.example', max: 255 })
      .nullable()
      .search()
      .input({ description: 'E.g. acme.com.' }),
    website: text({ example: 'https://northwind.example', max: 2048 }).nullable().search().input(),
    notes: text({ example: 'Design agency, 40 seats.', max: 20_000 }).nullable().search().input(),
  },
});
export type Company = RecordOf<typeof companyRecord>;

export const leadStatuses = ['new', 'working', 'qualified', 'disqualified', 'converted'] as const;
export const leadSources = [
  'manual',
  'website',
  'referral',
  'campaign',
  'import',
  'api',
  'mcp',
  'other',
] as const;

export const leadRecord = defineRecord({
  type: 'lead',
  module: 'crm',
  table: 'leads',
  prefix: 'lead',
  title: 'Lead',
  collection: '/v1/leads',
  key: 'lead',
  readScope: 'crm:read',
  fields: {
    name: text({ example: 'Grace Hopper', min: 1, max: 500 }).search().input(),
    email: text({ example: 'grace@example.com' })
      .nullable()
      .search()
      .input({ schema: Type.String({ format: 'email', maxLength: 320 }) }),
    phone: text({ example: '+1 415 555 0101', max: 64 }).nullable().input(),
    company_name: text({ example: 'Hopper Labs', max: 500 })
      .nullable()
      .search()
      .input({ description: 'convert_lead creates this company.' }),
    title: text({ example: 'Head of Engineering', max: 500 })
      .nullable()
      .search()
      .input({ description: 'Job title.' }),
    source: oneOf(leadSources).input({
      optional: true,
      description: 'On create, default api on REST, mcp on MCP.',
    }),
    score: number({ example: 72 })
      .nullable()
      .input({ schema: Type.Integer({ minimum: 0, maximum: 1_000_000 }) }),
    status: oneOf(leadStatuses),
    /** Each value is also in lead_custom_fields, for list_leads filters. */
    custom_fields: customFields(),
    conversion_reason: text({ example: 'Qualified on the discovery call.' }).nullable(),
    converted_contact_id: ref('contact', 'con').nullable(),
    converted_company_id: ref('company', 'cmp').nullable(),
    converted_deal_id: ref('deal', 'deal').nullable(),
    converted_at: timestamp().nullable(),
  },
});
export type Lead = RecordOf<typeof leadRecord>;
export type LeadRow = RowOf<typeof leadRecord>;

export const stageKinds = ['open', 'won', 'lost'] as const;
export type StageKind = (typeof stageKinds)[number];

/** Custom stages only: the built-in ones are not stored (deal-store.ts) and are read with list_deal_stages. */
export const dealStageRecord = defineRecord({
  type: 'deal_stage',
  module: 'crm',
  table: 'deal_stages',
  prefix: 'dstg',
  title: 'DealStage',
  collection: '/v1/deal-stages',
  key: 'stage',
  readScope: 'crm:read',
  fields: {
    id: text({
      example: 'dstg_negotiation',
      description: 'dstg_<key> for built-in stages, dstg_<ULID> for custom ones.',
    }),
    key: text({ example: 'negotiation', min: 1, max: 64, pattern: '^[a-z0-9_]+$' }).input({
      description: 'Unique; not a built-in key.',
    }),
    name: text({ example: 'Negotiation', min: 1, max: 200 }).input(),
    position: int({ example: 40, min: 0, max: 1_000_000 }).input({
      optional: true,
      description: 'Lower first.',
    }),
    kind: oneOf(stageKinds)
      .default('open')
      .input({ description: 'won and lost close the deal (closed_at set).' }),
    probability: number({ example: 60 })
      .nullable()
      .input({ schema: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent.' }) }),
    color: text({ example: '#3366ff', max: 32 }).nullable().input({ description: 'E.g. #2f80ed.' }),
    built_in: computed(Type.Boolean()),
    custom_fields: customFields(),
    created_at: timestamp().response(NullableTimestamp('null for built-in stages.')),
    updated_at: timestamp().response(NullableTimestamp('null for built-in stages.')),
  },
  compute: { built_in: () => false },
});
export type DealStage = RecordOf<typeof dealStageRecord>;

const STAGE_KEY = 'Built-in (new, qualified, proposal, won, lost) or custom (list_deal_stages). Preferred.';
const DEAL_NOTES = 'Overwritten by each write; create_note accumulates notes.';

export const dealRecord = defineRecord({
  type: 'deal',
  module: 'crm',
  table: 'deals',
  prefix: 'deal',
  title: 'Deal',
  collection: '/v1/deals',
  key: 'deal',
  readScope: 'crm:read',
  fields: {
    name: text({ example: 'Northwind annual plan', min: 1, max: 500 }).input(),
    stage: computed(Text('negotiation', 'The stage key (same as stage_key).')),
    stage_key: text({ example: 'negotiation', min: 1, max: 64 })
      .input({ optional: true, description: STAGE_KEY })
      .editable('replace', { description: STAGE_KEY }),
    amount_cents: money().default(0).input({ description: 'Default 0.' }).editable(),
    currency: currency().default('USD').input({ description: 'Default USD.' }).editable(),
    company_id: ref('company', 'cmp').nullable().input(),
    contact_id: ref('contact', 'con').nullable().input(),
    custom_fields: mergedCustomFields(),
    notes: text({ example: 'Budget approved; legal review pending.', max: 20_000 })
      .nullable()
      .input({ description: DEAL_NOTES })
      .editable('replace', { description: DEAL_NOTES, nullable: false }),
    /** Set while the deal is in a won or lost stage; null means open. */
    closed_at: timestamp().nullable(),
  },
  compute: { stage: (row) => row.stage_key },
});
export type Deal = RecordOf<typeof dealRecord>;
export type DealRow = RowOf<typeof dealRecord>;

const NOTE_METADATA = 'Machine-readable data (source system, message ID ...).';

export const noteRecord = defineRecord({
  type: 'note',
  module: 'crm',
  table: 'notes',
  prefix: 'note',
  title: 'Note',
  collection: '/v1/notes',
  key: 'note',
  readScope: 'crm:read',
  hiddenWhen: 'archived_at',
  fields: {
    title: text({ example: 'Renewal call', max: 500 }).nullable().search().input().editable(),
    body: text({
      example: 'Spoke with Ada; she wants the annual plan. Sending a quote on Monday.',
      min: 1,
      max: 100_000,
    })
      .search()
      .input()
      .editable(),
    contact_id: ref('contact', 'con').nullable().input().editable(),
    company_id: ref('company', 'cmp').nullable().input().editable(),
    deal_id: ref('deal', 'deal').nullable().input().editable(),
    custom_fields: mergedCustomFields(),
    metadata: fieldValues({ description: 'Free context for the client.' })
      .input({ description: NOTE_METADATA })
      .editable('merge', { description: NOTE_METADATA }),
    author_type: text().hidden(),
    author_credential_id: text().nullable().hidden(),
    author_name: text().hidden(),
    author: computed(
      Shape({
        type: Text('api_key', 'The kind of credential that wrote the note.'),
        credential_id: Nullable(RecordId('key')),
        name: Text('Sales assistant'),
      }),
    ),
    archived_at: timestamp().nullable(),
  },
  compute: {
    author: (row) => ({
      type: row.author_type,
      credential_id: row.author_credential_id,
      name: row.author_name,
    }),
  },
});
export type Note = RecordOf<typeof noteRecord>;
export type NoteRow = RowOf<typeof noteRecord>;
