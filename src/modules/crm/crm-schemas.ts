// Bodies and event data made of several CRM records (each record's own schema is its declaration's,
// crm-records.ts and ledger-records.ts).
import { type Static, Type } from '@sinclair/typebox';
import { AnyJson, Resource, Shape, Text } from '../../core/resource-schema.ts';
import { companyRecord, contactRecord, dealRecord, leadRecord } from './crm-records.ts';

/** update_deal_stage's body: the deal (as it would be, on a preview) and what changed. */
export const DealChangeBodySchema = Type.Object(
  {
    deal: dealRecord.schema,
    changes: Type.Array(
      Shape({
        field: Text('stage'),
        from: AnyJson('The value before.'),
        to: AnyJson('The value after.'),
      }),
    ),
  },
  { additionalProperties: false },
);

/** deal.stage_changed: the deal after the move and the stage key it left. */
export const DealStageChangeSchema = Resource('DealStageChange', {
  ...dealRecord.schema.properties,
  previous_stage: Text('qualified', 'The stage key the deal left.'),
});

/** convert_lead's body and lead.converted's data: the lead and the records it produced or linked. */
export const LeadConversionSchema = Type.Object(
  {
    lead: leadRecord.schema,
    contact: contactRecord.schema,
    company: Type.Optional(companyRecord.schema),
    deal: Type.Optional(dealRecord.schema),
  },
  { additionalProperties: false },
);
export type LeadConversion = Static<typeof LeadConversionSchema>;
