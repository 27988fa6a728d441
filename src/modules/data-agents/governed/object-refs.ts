// Typed references ({type, id}) held by decisions, insights, recommendations, source objects and knowledge
// artifacts: the type is a registered record type (as get_record names it) and the record must exist in
// this workspace, so a reference to another workspace's record is impossible (resource_not_found).
import { type Static, Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { Strict } from '../../../core/schema.ts';

export const refInput = (description?: string) =>
  Strict(
    {
      type: Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'A record type as get_record names it: contact, data_agent_insight, ...',
      }),
      id: Type.String({ minLength: 1, maxLength: 255 }),
    },
    description ? { description } : {},
  );

export const refListInput = (description: string) => Type.Array(refInput(), { maxItems: 50, description });

export type ObjectRef = Static<ReturnType<typeof refInput>>;

/** Every reference names a registered type (validation_failed on `<field>.type`) and an existing record. */
export async function checkRefs(
  ctx: OperationContext,
  refs: readonly { field: string; ref: ObjectRef }[],
): Promise<void> {
  const unknown: FieldError[] = refs
    .filter(({ ref }) => !ctx.hasRecordType(ref.type))
    .map(({ field }) => ({ field: `${field}.type`, message: 'is not a record type (see get_record)' }));
  if (unknown.length) throw validationFailed(unknown);
  for (const { ref } of refs) await ctx.requireRecord(ref.type, ref.id);
}

/** The references of a list field, with their input paths (evidence[2]). */
export const listedRefs = (field: string, refs: readonly ObjectRef[] | undefined) =>
  (refs ?? []).map((ref, i) => ({ field: `${field}[${i}]`, ref }));

export const refsJson = (refs: readonly ObjectRef[] | undefined): string =>
  JSON.stringify((refs ?? []).map(({ type, id }) => ({ type, id })));

export const parseRefs = (text: string): ObjectRef[] => JSON.parse(text) as ObjectRef[];
