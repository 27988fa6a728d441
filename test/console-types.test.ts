// The console's API types (src/console/api/schema.d.ts) are what openapi-typescript makes of today's
// OpenAPI document: an operation added or changed without `npm run console:types` fails here (and so CI).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consoleApiTypes } from '../scripts/console-types.ts';

describe('console API types', () => {
  it('are fresh: regenerate with npm run console:types', async () => {
    const committed = fs.readFileSync(new URL('../src/console/api/schema.d.ts', import.meta.url), 'utf8');
    const fresh = await consoleApiTypes();
    // Compared whole, but reported briefly: the first line that differs.
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    expect(
      line === -1 && a.length === b.length ? null : { line: line + 1, committed: a[line], fresh: b[line] },
    ).toBeNull();
  });
});
