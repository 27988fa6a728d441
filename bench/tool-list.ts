// tools/list sizes over HTTP (every page, JSON-RPC framing included) for an all-scopes MCP token: the whole
// listing, reported, and each profile's, held under 64 KB (test/mcp-profiles.test.ts checks the same).
import { PROFILE_NAMES } from '../src/core/tool-profiles.ts';

const PROFILE_BUDGET_BYTES = 64 * 1024;

async function listing(svc: string, token: string, query: string) {
  let tools = 0;
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await fetch(`${svc}/mcp${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor ? { cursor } : {} }),
    });
    const text = await page.text();
    const result = JSON.parse(text).result;
    tools += result.tools.length;
    bytes += Buffer.byteLength(text);
    cursor = result.nextCursor;
  } while (cursor);
  return { tools, bytes };
}

/** Prints the table of docs/performance.md ("tools/list size"). */
export async function toolListBench(svc: string, token: string): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out('\ntools/list for an all-scopes MCP token (bytes over every page; profiles budgeted at 64 KB):\n');
  out('| listing | tools | bytes | budget |\n|---|---:|---:|---|');
  const whole = await listing(svc, token, '');
  out(`| every tool (no ?profile=) | ${whole.tools} | ${whole.bytes} | reported, not budgeted |`);
  for (const profile of PROFILE_NAMES) {
    const { tools, bytes } = await listing(svc, token, `?profile=${profile}`);
    const verdict = bytes < PROFILE_BUDGET_BYTES ? 'under 64 KB' : 'OVER 64 KB';
    out(`| ?profile=${profile} | ${tools} | ${bytes} | ${verdict} |`);
  }
}

/** `npm run bench:tools`: the same table from a service in this process, on a temporary SQLite database. */
async function standalone(): Promise<void> {
  const [{ default: fs }, { default: os }, { default: path }] = await Promise.all([
    import('node:fs'),
    import('node:os'),
    import('node:path'),
  ]);
  const { buildApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { createCredential, createWorkspace } = await import('../src/admin/workspace-admin.ts');
  const { SCOPES } = await import('../src/core/catalogue.ts');
  const { newId } = await import('../src/core/ids.ts');
  const { systemClock } = await import('../src/core/clock.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-tools-'));
  const config = loadConfig({ WOS_DATA_DIR: dir, WOS_LOG_LEVEL: 'warn', WOS_WORKER: 'off' });
  const service = await buildApp({ config, clock: systemClock });
  try {
    const db = service.deps.database.db;
    const call = { db, clock: systemClock, requestId: newId('req'), surface: 'cli' as const };
    const workspace = await createWorkspace(call, { name: 'Tools' });
    const { token } = await createCredential(call, workspace.id, {
      kind: 'mcp_token',
      name: 'bench',
      scopes: [...SCOPES],
    });
    const svc = await service.app.listen({ port: 0, host: '127.0.0.1' });
    await toolListBench(svc, token);
  } finally {
    await service.app.close();
    await service.deps.database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone();
