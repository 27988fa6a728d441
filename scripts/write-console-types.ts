// Writes the console's API types (src/console/api/schema.d.ts): openapi-typescript over the document the
// server serves at /openapi.json, built from the registry (no server, no database). Run it after changing any
// operation: `npm run console:types`. test/console-types.test.ts fails while the committed file is stale.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { consoleApiTypes } from './console-types.ts';

const target = fileURLToPath(new URL('../src/console/api/schema.d.ts', import.meta.url));
fs.writeFileSync(target, await consoleApiTypes());
console.log(`wrote ${target}`);
