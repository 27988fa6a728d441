// Writes what clients see of the registry, for a before/after diff of a refactoring that must not change
// it: `tsx scripts/write-surfaces.ts <dir>` writes openapi.json (as served at /openapi.json), tools.json
// (MCP tools/list for an all-scopes credential) and events.json (the domain event catalogue's schemas).
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { buildRegistry } from '../src/registry.ts';
import { toMcpTool } from '../src/surfaces/mcp/mcp-tools.ts';
import { listedTools } from '../src/surfaces/mcp/tool-listing.ts';
import { buildOpenApi } from '../src/surfaces/openapi/openapi.ts';

const dir = process.argv[2] ?? 'build/surfaces';
const registry = buildRegistry();
const tools = listedTools(
  registry.operations.filter((op) => op.mcp).map((op) => toMcpTool(op, registry.responses.get(op.name)!)),
);
const write = (name: string, value: unknown) =>
  fs.writeFileSync(path.join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
fs.mkdirSync(dir, { recursive: true });
write('openapi.json', buildOpenApi(registry, loadConfig({})));
write('tools.json', tools);
write('events.json', [...registry.eventTypes.values()]);
console.log(`wrote ${dir}/openapi.json, tools.json, events.json`);
