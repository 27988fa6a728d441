// Bytes of tools/list for an all-scopes credential, whole and per profile, by part and by tool:
// `npx tsx scripts/tool-list-size.ts [profile]`. npm run bench prints the same totals measured over HTTP
// (JSON-RPC framing included).
import { isProfileName, PROFILE_NAMES } from '../src/core/tool-profiles.ts';
import { buildRegistry } from '../src/registry.ts';
import { type McpTool, toMcpTool } from '../src/surfaces/mcp/mcp-tools.ts';
import { selectedTools } from '../src/surfaces/mcp/tool-selection.ts';

const registry = buildRegistry();
const all = registry.operations
  .filter((op) => op.mcp)
  .map((op) => toMcpTool(op, registry.responses.get(op.name)!));
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function listing(profile?: string): McpTool[] {
  if (profile !== undefined && !isProfileName(profile)) throw new Error(`${profile} is not a profile`);
  const names = profile
    ? selectedTools(registry, { profiles: [profile], modules: [], tools: [] })
    : undefined;
  return all.filter((tool) => !names || names.has(tool.name));
}

const only = process.argv[2];
const out = (line: string) => process.stdout.write(`${line}\n`);
out('| listing | tools | bytes |\n|---|---:|---:|');
for (const profile of only ? [only] : [undefined, ...PROFILE_NAMES]) {
  const tools = listing(profile);
  out(`| ${profile ?? 'every tool'} | ${tools.length} | ${bytes({ tools })} |`);
}
const tools = listing(only);
const byPart: Record<string, number> = {};
for (const tool of tools)
  for (const [part, value] of Object.entries(tool)) byPart[part] = (byPart[part] ?? 0) + bytes(value);
out(`\n${only ?? 'every tool'} by part:`);
for (const [part, size] of Object.entries(byPart)) out(`  ${part}: ${size}`);
out('largest tools:');
const byTool = tools.map((tool): [string, number] => [tool.name, bytes(tool)]).sort((a, b) => b[1] - a[1]);
for (const [name, size] of byTool.slice(0, 15)) out(`  ${name}: ${size}`);
