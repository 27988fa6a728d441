// Schemas and helpers shared by the CRM and ledger resources.
import { Type } from '@sinclair/typebox';
import { FreeFields } from '../../core/schema.ts';

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

export const currencyInput = (description: string | null = 'Default USD.') =>
  Type.String({ pattern: '^[A-Z]{3}$', ...(description ? { description } : {}) });

/** Money in the smallest currency unit; capped so every sum stays an exact JS number. */
export const centsInput = (minimum: number, description?: string) =>
  Type.Integer({ minimum, maximum: 1_000_000_000_000_000, ...(description ? { description } : {}) });

/** User-defined scalar fields; on updates say how they merge. */
export const customFieldsInput = (description?: string) => FreeFields(description);

/** custom_fields of an update: merged into the stored ones. */
export const mergedFieldsInput = () => customFieldsInput('Merged; null removes a key.');

export const idInput = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...(description ? { description } : {}) });

export function parseFields(json: string): Fields {
  return JSON.parse(json) as Fields;
}
