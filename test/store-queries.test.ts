// Store files hold the queries: an operation file (or a helper working on an OperationContext) calls its
// module's store functions and never builds SQL on ctx.db itself.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULES = path.resolve(import.meta.dirname, '../src/modules');
const QUERY = /\.(selectFrom|selectNoFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('module layout', () => {
  const operationFiles = sourceFiles(MODULES).filter((file) => {
    if (file.endsWith('-store.ts')) return false;
    const text = fs.readFileSync(file, 'utf8');
    return text.includes('defineOperation(') || text.includes('OperationContext');
  });

  it('finds the operation files', () => {
    expect(operationFiles.length).toBeGreaterThan(30);
  });

  it.each(operationFiles.map((file) => [path.relative(MODULES, file), file]))(
    '%s builds no query',
    (_name, file) => {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const queries = lines.flatMap((line, i) => (QUERY.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
      expect(queries, "move these queries into the module's store file").toEqual([]);
    },
  );
});
