// Seed rows the BI tests write straight into the database, so their numbers can be summed by hand.
import { newId } from '../../src/core/ids.ts';

/** A deal of the crm_pipeline template: its stage, currency and amount are what the tests sum. */
export function dealRow(
  workspaceId: string,
  now: string,
  stage_key: string,
  currency: string,
  amount_cents: number,
  closed = false,
) {
  return {
    workspace_id: workspaceId,
    id: newId('deal'),
    name: `${stage_key} ${currency} ${amount_cents}`,
    stage_key,
    amount_cents,
    currency,
    company_id: null,
    contact_id: null,
    custom_fields: '{}',
    notes: null,
    closed_at: closed ? now : null,
    created_at: now,
    updated_at: now,
  };
}
