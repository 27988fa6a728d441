// Writes the OpenAPI document the server serves at /openapi.json, built from the registry (no server, no
// database): `tsx scripts/write-openapi.ts <file>`. npm run lint:openapi lints it with Redocly.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { buildRegistry } from '../src/registry.ts';
import { buildOpenApi } from '../src/surfaces/openapi/openapi.ts';

const target = process.argv[2] ?? 'build/openapi.json';
const config = loadConfig({});
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, `${JSON.stringify(buildOpenApi(buildRegistry(), config), null, 2)}\n`);
console.log(`wrote ${target}`);
