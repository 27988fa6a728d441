import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { defineRecord, type RecordOf, type RowOf } from './define-record.ts';
import {
  bool,
  computed,
  fieldValues,
  int,
  json,
  money,
  oneOf,
  ref,
  text,
  timestamp,
} from './record-fields.ts';
import { Strict } from './schema.ts';

// A record using the builders the product's declarations use least: its codecs, defaults and inputs.
const widget = defineRecord({
  type: 'widget',
  module: 'crm',
  table: 'widgets',
  prefix: 'wdg',
  title: 'Widget',
  collection: '/v1/widgets',
  key: 'widget',
  readScope: 'crm:read',
  fields: {
    name: text({ example: 'Gear', min: 1, max: 100 }).search().input().editable(),
    kind: oneOf(['small', 'large'] as const)
      .default('small')
      .input()
      .editable(),
    owner_id: ref('contact', 'con').nullable().input().editable(),
    active: bool().default(true).input().editable(),
    count: int({ example: 3, min: 0 }).input({ optional: true }),
    price_cents: money().default(0),
    tags: json(Type.Array(Type.String())).default([]).input().editable(),
    settings: fieldValues().input().editable('merge', { description: 'Merged.' }),
    secret: text().nullable().hidden(),
    label: computed(Type.String()),
    seen_at: timestamp().nullable(),
  },
  compute: { label: (row) => `${row.name} (${row.kind})` },
});
type Widget = RecordOf<typeof widget>;
type WidgetRow = RowOf<typeof widget>;

describe('defineRecord', () => {
  const scope = { workspaceId: 'ws_1', now: '2026-11-21T12:00:00.000Z' };

  it('makes a new row: ID, timestamps, defaults, nulls and encoded values', () => {
    const values = { name: 'Gear', active: false, count: 1, settings: { a: 1, b: null } };
    const row: WidgetRow = widget.row(scope, values);
    expect(row).toEqual({
      workspace_id: 'ws_1',
      id: expect.stringMatching(/^wdg_/),
      name: 'Gear',
      kind: 'small',
      owner_id: null,
      active: 0,
      count: 1,
      price_cents: 0,
      tags: '[]',
      settings: '{"a":1}',
      secret: null,
      seen_at: null,
      created_at: scope.now,
      updated_at: scope.now,
    });
    expect(widget.columns).toEqual(['workspace_id', ...Object.keys(row).filter((k) => k !== 'workspace_id')]);
  });

  it('maps a row to the record: codecs, computed fields, hidden columns left out', () => {
    const row = {
      ...widget.row(scope, { name: 'Gear', count: 2, tags: ['x'] }),
      price_cents: '125' as never,
    };
    // A bigint handed back as text (pg without the service's type parser) still reads as a number.
    const record: Widget = widget.toRecord({ ...row, active: 1, secret: 's' });
    expect(record).toMatchObject({
      active: true,
      count: 2,
      price_cents: 125,
      tags: ['x'],
      label: 'Gear (small)',
    });
    expect(record).not.toHaveProperty('secret');
    expect(Object.keys(widget.schema.properties)).toEqual(Object.keys(record));
  });

  it('derives the create and patch inputs and the searched columns', () => {
    expect(Strict(widget.createInput).required).toEqual(['name']);
    expect(Object.keys(widget.createInput)).toEqual([
      'name',
      'kind',
      'owner_id',
      'active',
      'count',
      'tags',
      'settings',
    ]);
    const patch = JSON.parse(JSON.stringify(Strict(widget.patchInput)));
    expect(patch.required).toBeUndefined();
    expect(patch.properties.owner_id.anyOf[1]).toEqual({ type: 'null' });
    expect(patch.properties.settings.description).toBe('Merged.');
    expect(widget.editable).toEqual(['name', 'kind', 'owner_id', 'active', 'tags', 'settings']);
    expect(widget.searchColumns).toEqual(['name']);
  });

  it('refuses a new row without a required value, and a computed field without its function', () => {
    expect(() => widget.row(scope, {} as never)).toThrow('A new widget needs name');
    expect(() =>
      defineRecord({
        type: 'broken',
        module: 'crm',
        table: 'broken',
        prefix: 'brk',
        title: 'Broken',
        collection: '/v1/broken',
        key: 'broken',
        readScope: 'crm:read',
        fields: { label: computed(Type.String()) },
        compute: {} as never,
      }),
    ).toThrow('broken.label: computed without compute');
  });
});
