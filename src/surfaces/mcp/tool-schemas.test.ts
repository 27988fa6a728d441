import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Enum } from '../../core/resource-schema.ts';
import { compileResponseSchema } from '../../core/schema.ts';
import { toolInputSchema, toolOutputSchema } from './tool-schemas.ts';

const Contact = Type.Object(
  {
    id: Type.String({ description: 'ID' }),
    stage: Type.Union([Enum(['new', 'won']), Type.Null()]),
    address: Type.Object({ city: Type.String() }),
    tags: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
const body = Type.Object({ contact: Contact, request_id: Type.String() }, { additionalProperties: false });

describe('tool schemas', () => {
  it('writes a nullable enum as one type list whose enum admits null', () => {
    const input = toolInputSchema(
      Type.Object({ stage: Type.Optional(Type.Union([Enum(['a', 'b']), Type.Null()])) }),
    );
    expect((input.properties as Record<string, unknown>).stage).toEqual({
      type: ['string', 'null'],
      enum: ['a', 'b', null],
    });
    const validate = compileResponseSchema(input as never);
    expect(validate({ stage: null })).toBe(true);
    expect(validate({ stage: 'c' })).toBe(false);
  });

  it('leaves out what the instructions say once: closed objects, descriptions that only list the enum', () => {
    const input = toolInputSchema(
      Type.Object(
        {
          kind: Enum(['report', 'metric', 'insight_view'], {
            description: 'report, metric or insight_view.',
          }),
          state: Enum(['active', 'paused'], { description: 'active, or paused: never runs.' }),
          labels: Type.Record(Type.String(), Type.String()),
          ref: Type.Object({ id: Type.String() }, { additionalProperties: false }),
        },
        { additionalProperties: false },
      ),
    );
    const properties = input.properties as Record<string, Record<string, unknown>>;
    expect(input).not.toHaveProperty('additionalProperties');
    expect(properties.ref).not.toHaveProperty('additionalProperties');
    expect(properties.kind).toEqual({ type: 'string', enum: ['report', 'metric', 'insight_view'] });
    expect(properties.state!.description).toBe('active, or paused: never runs.');
    expect(properties.labels).toHaveProperty('patternProperties');
  });

  it('outlines a body: keys typed and required, records typed as objects', () => {
    const output = toolOutputSchema(body);
    expect(output.anyOf).toEqual([
      {
        properties: { contact: { type: 'object' }, request_id: { type: 'string' } },
        required: ['contact', 'request_id'],
      },
      { required: ['error'] },
    ]);
    const validate = compileResponseSchema(output as never);
    expect(validate({ contact: { id: 'con_1', stage: null }, request_id: 'req_1' })).toBe(true);
    expect(validate({ error: { code: 'validation_failed', message: 'x', request_id: 'req_1' } })).toBe(true);
    expect(validate({ contact: 'con_1', request_id: 'req_1' })).toBe(false);
    expect(validate({ request_id: 'req_1' })).toBe(false);
  });

  it('says once the outline that every branch of a union shares', () => {
    const union = Type.Object({
      object: Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
    });
    const [success] = toolOutputSchema(union).anyOf as Record<string, unknown>[];
    expect(success).toEqual({ properties: { object: { type: 'object' } }, required: ['object'] });
  });
});
