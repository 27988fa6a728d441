// Helpers shared by the CRM and ledger operations.
import { Type } from '@sinclair/typebox';

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

/** The ID of a record in a path or body. */
export const idInput = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...(description ? { description } : {}) });
