import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Enum, Nullable, Resource } from '../../core/resource-schema.ts';
import { compileResponseSchema, MapOf, Strict } from '../../core/schema.ts';
import { toolInputSchema, toolOutputSchema } from './tool-schemas.ts';

const Contact = Resource('Contact', {
  id: Type.String({ description: 'ID', examples: ['con_1'] }),
  title: Nullable(Type.String(), { description: 'A field named like a keyword.' }),
  stage: Nullable(Enum(['new', 'won'])),
  address: Type.Object({ city: Type.String() }, { additionalProperties: false }),
  tags: Type.Array(Type.String()),
});
const body = Type.Object({ contact: Contact, request_id: Type.String() }, { additionalProperties: false });

describe('tool schemas', () => {
  it('lists the input as declared: closed objects, maps, nullable fields as anyOf, descriptions kept', () => {
    const declared = Strict({
      stage: Type.Optional(Nullable(Enum(['a', 'b']), { description: 'Where it is.' })),
      labels: MapOf(Type.String()),
      ref: Strict({ id: Type.String() }),
    });
    const input = toolInputSchema(declared);
    expect(input).toEqual(JSON.parse(JSON.stringify(declared)));
    const properties = input.properties as Record<string, Record<string, unknown>>;
    expect(input.additionalProperties).toBe(false);
    expect(properties.ref!.additionalProperties).toBe(false);
    expect(properties.labels!.additionalProperties).toEqual({ type: 'string' });
    expect(properties.stage).toEqual({
      description: 'Where it is.',
      anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }],
    });
  });

  it('types every field of the records a body holds, without descriptions, examples or titles', () => {
    const output = toolOutputSchema(body);
    const [success, error] = output.anyOf as Record<string, any>[];
    expect(error).toEqual({ required: ['error'] });
    expect(success!.properties.contact).toEqual({
      additionalProperties: false,
      type: 'object',
      required: ['id', 'title', 'stage', 'address', 'tags'],
      properties: {
        id: { type: 'string' },
        title: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        stage: { anyOf: [{ type: 'string', enum: ['new', 'won'] }, { type: 'null' }] },
        address: {
          additionalProperties: false,
          type: 'object',
          required: ['city'],
          properties: { city: { type: 'string' } },
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
    });
    const validate = compileResponseSchema(output as never);
    const contact = { id: 'con_1', title: null, stage: 'won', address: { city: 'Oslo' }, tags: [] };
    expect(validate({ contact, request_id: 'req_1' })).toBe(true);
    expect(validate({ error: { code: 'validation_failed', message: 'x', request_id: 'req_1' } })).toBe(true);
    expect(validate({ contact: { ...contact, stage: 'lost' }, request_id: 'req_1' })).toBe(false);
    expect(validate({ contact: { ...contact, extra: 1 }, request_id: 'req_1' })).toBe(false);
    expect(validate({ request_id: 'req_1' })).toBe(false);
  });
});
