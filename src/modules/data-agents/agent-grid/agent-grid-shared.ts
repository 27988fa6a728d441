// Inputs and checks shared by the Agent Grid operations.
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { type FieldError, fail, validationFailed } from '../../../core/errors.ts';
import { FreeFields, MapOf } from '../../../core/schema.ts';

export const idInput = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...(description ? { description } : {}) });

export const keyInput = (description: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[a-z][a-z0-9_]*$',
    examples: [example],
    description,
  });

export const metadataInput = (description = 'Scalar fields of your own (trace IDs ...).') =>
  FreeFields(description);

export const jsonInput = (description: string) => MapOf(Type.Unknown(), { description });

export const currencyInput = (description: string) =>
  Type.String({ pattern: '^[A-Z]{3}$', examples: ['USD'], description });

export const parseJson = <T>(text: string): T => JSON.parse(text) as T;

/** The tools an agent may name: MCP tools of this service (not REST-only lookups). */
export function isRegistryTool(ctx: OperationContext, name: string): boolean {
  const op = ctx.operationNamed(name);
  return Boolean(op?.mcp);
}

/** Every name must be a registry tool, listed once: validation_failed naming tools[i] otherwise. */
export function checkToolList(ctx: OperationContext, tools: readonly string[], field = 'tools'): void {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (!isRegistryTool(ctx, tool)) {
      errors.push({ field: `${field}[${i}]`, message: `"${tool}" is not a tool of this service` });
    } else if (seen.has(tool)) {
      errors.push({ field: `${field}[${i}]`, message: `"${tool}" is listed twice` });
    }
    seen.add(tool);
  });
  if (errors.length) throw validationFailed(errors);
}

/** A write on a record past the state it needs (a finished run, a closed session): 409 naming the state. */
export function conflictWith(what: string, id: string, status: string): Error {
  return fail('conflict', {
    message: `The ${what} ${id} is ${status}; it takes no further changes of this kind.`,
  });
}

/** A PATCH's nullable text: undefined (not sent), null (cleared) or the text. */
export type Patch<T> = T | null | undefined;
