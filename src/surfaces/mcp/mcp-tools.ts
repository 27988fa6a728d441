import type { TObject } from '@sinclair/typebox';
import type { Principal } from '../../core/auth.ts';
import { isModuleEnabled } from '../../core/auth.ts';
import type { OperationDefinition } from '../../core/define-operation.ts';
import type { Registry } from '../../registry.ts';
import { toolInputSchema, toolOutputSchema } from './tool-schemas.ts';

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: false;
  };
  _meta: Record<string, unknown>;
}

const toolCache = new WeakMap<OperationDefinition, McpTool>();

/** An archive, or a delete (a DELETE route, a delete_ tool): it takes something away. */
function removes(op: OperationDefinition): boolean {
  return op.kind === 'archive' || op.rest?.method === 'DELETE' || op.name.startsWith('delete_');
}

/** Repeating the call with the same input changes nothing more (update semantics, upserts, declared). */
export function repeatsHarmlessly(op: OperationDefinition): boolean {
  return op.kind === 'update' || removes(op) || op.upsert === true || op.idempotent === true;
}

/**
 * The tool's hints, only where they differ from the MCP defaults (readOnly false, destructive true,
 * idempotent false, openWorld true): every tool acts on this workspace alone (openWorld false); a read is
 * read-only (the other two hints then mean nothing). A call whose repeat changes nothing more is idempotent:
 * it sets an end state (an update, an upsert, a replace, a cancel, a removal), so it may overwrite or take
 * away and keeps destructive; any other create or action only adds.
 */
function hints(op: OperationDefinition): McpTool['annotations'] {
  if (op.kind === 'read') return { readOnlyHint: true, openWorldHint: false };
  const additive = !repeatsHarmlessly(op);
  return {
    ...(additive ? { destructiveHint: false } : {}),
    ...(repeatsHarmlessly(op) ? { idempotentHint: true } : {}),
    openWorldHint: false,
  };
}

/**
 * The MCP tool of an operation: its strict JSON Schema as inputSchema, its declared response typed field by
 * field as outputSchema, hints from its kind.
 */
export function toMcpTool(op: OperationDefinition, response: TObject): McpTool {
  let tool = toolCache.get(op);
  if (!tool) {
    const description = op.deprecated
      ? `DEPRECATED: use ${op.deprecated.replacedBy}. ${op.description}`
      : op.description;
    tool = {
      name: op.name,
      title: op.summary,
      description,
      inputSchema: toolInputSchema(op.input),
      outputSchema: toolOutputSchema(response),
      annotations: hints(op),
      _meta: {
        module: op.module,
        scopes: op.scopes,
        ...(op.scopeMode === 'any' ? { scope_mode: 'any' } : {}),
        ...(op.deprecated
          ? {
              deprecated: true,
              replaced_by: op.deprecated.replacedBy,
              rest: op.rest ? `${op.rest.method} ${op.rest.path}` : null,
            }
          : {}),
        ...(op.rest === null ? { rest: null } : {}),
        ...(op.dryRun ? { dry_run: true } : {}),
        ...(op.extension ? { extension: true } : {}),
      },
    };
    toolCache.set(op, tool);
  }
  return tool;
}

export function canCall(op: OperationDefinition, principal: Principal): boolean {
  const held = op.scopes.filter((scope) => principal.credential.scopes.has(scope)).length;
  return op.scopeMode === 'all' ? held === op.scopes.length : held > 0;
}

/** Tools this credential can call now: MCP-exposed, module enabled, scopes held, inside the selection. */
export function visibleTools(
  registry: Registry,
  principal: Principal,
  toolFilter?: ReadonlySet<string>,
): McpTool[] {
  return registry.operations
    .filter(
      (op) =>
        op.mcp &&
        (!toolFilter || toolFilter.has(op.name)) &&
        isModuleEnabled(principal.workspace, op.module) &&
        canCall(op, principal),
    )
    .map((op) => toMcpTool(op, registry.responses.get(op.name)!));
}
