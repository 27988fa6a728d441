import type { OperationContext } from './context.ts';
import { validationFailed } from './errors.ts';

/**
 * related_resource_type and related_resource_id go together and must name an existing record of that
 * type in this workspace (resource_not_found otherwise).
 */
export async function checkRelatedRecord(
  ctx: OperationContext,
  input: { related_resource_type?: string; related_resource_id?: string },
): Promise<void> {
  const { related_resource_type: type, related_resource_id: id } = input;
  if (type === undefined && id === undefined) return;
  if (type === undefined) {
    throw validationFailed([
      { field: 'related_resource_type', message: 'is required with related_resource_id' },
    ]);
  }
  if (id === undefined) {
    throw validationFailed([
      { field: 'related_resource_id', message: 'is required with related_resource_type' },
    ]);
  }
  await ctx.requireRecord(type, id);
}
