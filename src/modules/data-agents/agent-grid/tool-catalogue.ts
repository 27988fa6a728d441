// The tools of this service as the module list declares them, for work that has no call's registry at hand
// (the outbox consumer and the job of workflow discovery, the assistant's job) and for ranking tools by
// their descriptions. Loaded lazily: the module list imports this module.
import type { TObject, TSchema } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import type { OperationDefinition } from '../../../core/define-operation.ts';
import { HybridIndex } from './text-rank.ts';

let catalogue: Promise<ReadonlyMap<string, OperationDefinition>> | undefined;

/** Every MCP tool the modules declare, by name (record lookups are REST-only and not tools). */
export function toolCatalogue(): Promise<ReadonlyMap<string, OperationDefinition>> {
  catalogue ??= import('../../module-list.ts').then(
    ({ moduleList }) =>
      new Map(
        moduleList
          .flatMap((m) => m.operations as OperationDefinition[])
          .filter((op) => op.mcp)
          .map((op) => [op.name, op]),
      ),
  );
  return catalogue;
}

/** The first sentence of a description: the one line an agent reads first. */
export function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (match ? match[1]! : text.trim()).replace(/\s+/g, ' ');
}

/** Whether the caller of this call may use a tool: on MCP, its module on, every scope held. */
export function callerMayUse(ctx: OperationContext, op: OperationDefinition): boolean {
  if (!op.mcp || op.deprecated || !ctx.enabledModule(op.module)) return false;
  return op.scopeMode === 'any'
    ? op.scopes.some((s) => ctx.scopes.has(s))
    : op.scopes.every((s) => ctx.scopes.has(s));
}

/**
 * The tools of this call's registry the caller may use: the module list's tools as this registry has them,
 * plus the two the registry itself adds (get_workspace_summary, get_record).
 */
export async function usableTools(ctx: OperationContext): Promise<OperationDefinition[]> {
  const names = [...(await toolCatalogue()).keys(), 'get_workspace_summary', 'get_record'];
  return names.flatMap((name) => {
    const op = ctx.operationNamed(name);
    return op && callerMayUse(ctx, op) ? [op] : [];
  });
}

let toolIndex: Promise<HybridIndex<OperationDefinition>> | undefined;

/** The tools ranked by an instruction: name, summary, description and scopes, keyword and vector hybrid. */
export function toolIndexOf(tools: Iterable<OperationDefinition>): HybridIndex<OperationDefinition> {
  const index = new HybridIndex<OperationDefinition>({ name: 3, summary: 2, description: 1, module: 1 });
  for (const op of tools) {
    index.add(
      op,
      { name: op.name, summary: op.summary, description: op.description, module: op.module },
      `${op.name} ${op.name} ${op.summary} ${op.description}`,
    );
  }
  return index;
}

/** One index of every catalogue tool per process (callers filter it by what the caller may use). */
export function catalogueToolIndex(ctx: OperationContext): Promise<HybridIndex<OperationDefinition>> {
  toolIndex ??= toolCatalogue().then(async (tools) => {
    const all = [...tools.keys(), 'get_workspace_summary', 'get_record'].flatMap((name) => {
      const op = ctx.operationNamed(name);
      return op ? [op] : [];
    });
    return toolIndexOf(all);
  });
  return toolIndex;
}

/** A placeholder per required field (its first example or its type), the optional fields by name. */
export function argumentSkeleton(input: TObject) {
  const required = new Set(input.required ?? []);
  const args: Record<string, unknown> = {};
  const optional: string[] = [];
  for (const [name, schema] of Object.entries(input.properties as Record<string, TSchema>)) {
    if (name === 'idempotency_key' || name === 'dry_run') continue;
    if (!required.has(name)) {
      optional.push(name);
      continue;
    }
    const example = (schema.examples as unknown[] | undefined)?.[0];
    const values = (schema.anyOf as TSchema[] | undefined)
      ?.map((s) => s.const)
      .filter((v) => v !== undefined);
    args[name] =
      example ??
      values?.[0] ??
      `<${schema.type ?? 'value'}${schema.description ? `: ${schema.description}` : ''}>`;
  }
  return { arguments: args, optional_fields: optional };
}
