// The README stays in step with the catalogue: every scope a credential can hold is listed.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/catalogue.ts';

describe('README', () => {
  it('lists every scope of the catalogue', () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const missing = SCOPES.filter((scope) => !readme.includes(`\`${scope}\``));
    expect(missing).toEqual([]);
  });
});
