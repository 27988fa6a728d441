import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../registry.ts';
import { type McpTool, toMcpTool } from './mcp-tools.ts';
import { expandPointers, listedTools, parsePointer } from './tool-listing.ts';

const registry = buildRegistry();
const allTools = registry.operations
  .filter((op) => op.mcp)
  .map((op) => toMcpTool(op, registry.responses.get(op.name)!));

function pointers(schema: unknown, found: { tool: string; path: string }[] = []) {
  if (!schema || typeof schema !== 'object') return found;
  const target = parsePointer((schema as Record<string, unknown>).description);
  if (target) found.push(target);
  for (const value of Object.values(schema)) pointers(value, found);
  return found;
}

describe('tools/list listing', () => {
  const listing = listedTools(allTools);
  const byName = new Map(listing.map((tool) => [tool.name, tool]));

  it('lists a repeated field schema once and points there from later tools', () => {
    const update = byName.get('update_bi_object')!.inputSchema.properties as Record<string, unknown>;
    expect(update.query).toEqual({
      type: 'object',
      description:
        "A governed BI query: names are checked against the dataset columns. Collections: reports. Same schema as create_bi_report's query.",
    });
    expect(JSON.stringify(listing).length).toBeLessThan(JSON.stringify(allTools).length * 0.95);
  });

  it('expands back to every tool schema exactly, each pointer naming this tool or an earlier one', () => {
    const position = new Map(listing.map((tool, index) => [tool.name, index]));
    for (const [index, tool] of listing.entries()) {
      expect(expandPointers(tool.inputSchema, byName)).toEqual(allTools[index]!.inputSchema);
      for (const target of pointers(tool.inputSchema)) {
        expect(position.get(target.tool)!, `${tool.name} -> ${target.tool}`).toBeLessThanOrEqual(index);
      }
    }
  });

  it('points within the tools of the listing: a narrower listing keeps the schema whole', () => {
    const update = allTools.find((tool) => tool.name === 'update_bi_object')!;
    const [alone] = listedTools([update]);
    expect(alone).toBe(update);
    expect(pointers(alone!.inputSchema)).toEqual([]);
  });

  it('leaves the cached tools unchanged', () => {
    const before = JSON.stringify(allTools);
    listedTools([...allTools].reverse() as McpTool[]);
    expect(JSON.stringify(allTools)).toBe(before);
  });
});
