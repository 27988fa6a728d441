// Schemas and helpers shared by the CRM and ledger resources.
import { Type } from '@sinclair/typebox';
import { FreeFields } from '../../core/schema.ts';

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

export const currencyInput = (description = 'ISO 4217 code in upper case, e.g. USD (default USD).') =>
  Type.String({ pattern: '^[A-Z]{3}$', description });

/** Money in the smallest currency unit; capped so every sum stays an exact JS number. */
export const centsInput = (minimum: number, description: string) =>
  Type.Integer({ minimum, maximum: 1_000_000_000_000_000, description });

export const customFieldsInput = (what: string) =>
  FreeFields(`User-defined fields of the ${what}: string, number, boolean or null values.`);

export const idInput = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

export function parseFields(json: string): Fields {
  return JSON.parse(json) as Fields;
}
