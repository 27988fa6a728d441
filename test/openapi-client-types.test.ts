// A client generated from /openapi.json with openapi-typescript types every record: the contact of
// create_contact's 201 (and of its idempotent replay, 200) is a typed object, not unknown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './helpers/harness.ts';

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await Harness.start();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-openapi-types-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await h.close();
});

/** Type-checks a snippet against the generated declarations; returns the compiler's messages. */
function typeCheck(snippet: string): string[] {
  const file = path.join(dir, 'check.ts');
  fs.writeFileSync(file, snippet);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated with openapi-typescript', () => {
  it('types the contact of create_contact (201 and replay 200) and list pages', async () => {
    const document = (await h.request('GET', '/openapi.json')).body;
    const source = astToString(await openapiTS(document));
    fs.writeFileSync(path.join(dir, 'api.d.ts'), source);
    expect(source).toContain('Contact: {');

    const ok = typeCheck(`
      import type { components, paths } from './api';
      type IsUnknown<T> = unknown extends T ? true : false;
      type Created = paths['/v1/contacts']['post']['responses'][201]['content']['application/json'];
      type Replayed = paths['/v1/contacts']['post']['responses'][200]['content']['application/json'];
      type Page = paths['/v1/contacts']['get']['responses'][200]['content']['application/json'];
      const typed: IsUnknown<Created['contact']> = false;
      const replayTyped: IsUnknown<Replayed['contact']> = false;
      const contact: components['schemas']['Contact'] = {} as Created['contact'];
      const name: string = contact.name;
      const email: string | null = contact.email;
      const firstName: string | undefined = ({} as Page).contacts[0]?.name;
      const requestId: string = ({} as Replayed).request_id;
      export { typed, replayTyped, name, email, firstName, requestId };
    `);
    expect(ok).toEqual([]);

    // And the types are real: a wrong use fails to compile.
    const wrong = typeCheck(`
      import type { paths } from './api';
      type Created = paths['/v1/contacts']['post']['responses'][201]['content']['application/json'];
      const count: number = ({} as Created).contact.name;
      export { count };
    `);
    expect(wrong.join('\n')).toMatch(/not assignable to type 'number'/);
  });
});
