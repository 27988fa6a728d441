import { describe, expect, it } from 'vitest';
import { type FieldDefinition, fieldErrors, fieldsSchema, searchText, slugify } from './entry-fields.ts';

const defs: FieldDefinition[] = [
  { key: 'price', type: 'number', label: null, required: true, list: false },
  { key: 'tags', type: 'text', label: null, required: false, list: true },
  { key: 'body', type: 'rich_text', label: null, required: false, list: false },
  { key: 'when', type: 'date', label: null, required: false, list: false },
];

describe('entry fields', () => {
  it('builds a closed JSON Schema with the required keys', () => {
    expect(fieldsSchema(defs)).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['price'],
    });
  });

  it('names errors from the entry input: fields.<key>', () => {
    expect(fieldErrors(defs, { price: 1, tags: ['a'], when: '2026-01-01' })).toEqual([]);
    expect(fieldErrors(defs, { price: 1, when: '2026-01-01T10:00:00Z' })).toEqual([]);
    expect(fieldErrors(defs, { tags: [1], extra: true, when: 'soon' })).toEqual([
      { field: 'fields.price', message: 'is required' },
      { field: 'fields.extra', message: 'is not a recognized field' },
      { field: 'fields.tags[0]', message: 'must be of type string' },
      {
        field: 'fields.when',
        message: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time, from 1900 to 9999',
      },
    ]);
  });

  it('collects text and rich_text values for search', () => {
    expect(searchText(defs, { price: 5, tags: ['x', 'y'], body: '<b>z</b>' })).toBe('x\ny\n<b>z</b>');
  });

  it('derives slugs', () => {
    expect(slugify('Crème Brûlée: 10 Tips!')).toBe('creme-brulee-10-tips');
    expect(slugify('!!!')).toBe('entry');
    expect(slugify('a'.repeat(100)).length).toBe(80);
  });
});
