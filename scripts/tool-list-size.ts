// Bytes of tools/list for an all-scopes credential, by part and by tool: `npx tsx scripts/tool-list-size.ts`.
// npm run bench prints the same total measured over HTTP (JSON-RPC framing included).
import { buildRegistry } from '../src/registry.ts';
import { toMcpTool } from '../src/surfaces/mcp/mcp-tools.ts';
import { listedTools } from '../src/surfaces/mcp/tool-listing.ts';

const registry = buildRegistry();
const byPart: Record<string, number> = {};
const byTool: [string, number][] = [];
const tools = listedTools(
  registry.operations.filter((op) => op.mcp).map((op) => toMcpTool(op, registry.responses.get(op.name)!)),
);
for (const tool of tools) {
  for (const [part, value] of Object.entries(tool)) {
    byPart[part] = (byPart[part] ?? 0) + JSON.stringify(value).length;
  }
  byTool.push([tool.name, JSON.stringify(tool).length]);
}
const total = byTool.reduce((sum, [, bytes]) => sum + bytes, 0);
process.stdout.write(
  `${byTool.length} tools, ${total} bytes (${Math.round(total / byTool.length)} a tool)\n`,
);
for (const [part, bytes] of Object.entries(byPart)) process.stdout.write(`  ${part}: ${bytes}\n`);
byTool.sort((a, b) => b[1] - a[1]);
process.stdout.write('largest:\n');
for (const [name, bytes] of byTool.slice(0, 15)) process.stdout.write(`  ${name}: ${bytes}\n`);
