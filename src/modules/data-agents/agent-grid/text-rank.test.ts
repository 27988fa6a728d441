import { describe, expect, it } from 'vitest';
import { HybridIndex, hybridScore, keywordMatch, stem, terms } from './text-rank.ts';

describe('text-rank', () => {
  it('stems plurals and verb endings so inflections meet', () => {
    expect(['invoices', 'invoice', 'boxes', 'queries', 'billing', 'archived', 'class'].map(stem)).toEqual([
      'invoice',
      'invoice',
      'box',
      'query',
      'bill',
      'archiv',
      'class',
    ]);
    expect(terms('create_invoice for the Invoices')).toEqual(['create', 'invoice']);
  });

  it('weighs each query term by its best field and reports which matched', () => {
    const fields = { name: new Set(['month', 'end']), step_tools: new Set(['create', 'invoice']) };
    const match = keywordMatch(['invoice', 'refund'], fields, { name: 1, step_tools: 0.5 });
    expect(match).toEqual({ score: 0.25, matched_terms: ['invoice'], matched_fields: ['step_tools'] });
    expect(hybridScore(-0.3, 0.5)).toBe(0.25);
  });

  it('ranks by keywords and vectors, rare terms first, with a filter', () => {
    const index = new HybridIndex<string>({ name: 2, text: 1 });
    index.add('a', { name: 'search contacts', text: 'Lists contacts' }, 'search contacts');
    index.add('b', { name: 'create invoice', text: 'Creates an invoice for contacts' }, 'create invoice');
    index.add('c', { name: 'list tasks', text: 'Lists tasks' }, 'list tasks');
    expect(index.search('invoice for a contact', 3).map((r) => r.item)[0]).toBe('b');
    expect(index.search('invoice', 3, (item) => item !== 'b').map((r) => r.item)).not.toContain('b');
    expect(index.search('zzz', 3)).toEqual([]);
  });
});
