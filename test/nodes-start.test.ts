// Nodes of one installation as real `wos serve` processes. Three started at once on a fresh PostgreSQL
// schema all come up (no deadlock creating the job queues), one bootstrap happens (one "Default" workspace,
// one set of printed tokens), and a file uploaded through one node completes on a second and downloads from
// the third (S3 storage on a loopback server). A node whose WOS_ADMIN_TOKEN differs from the stored operator
// token refuses to start; `wos operator-token rotate` changes it on purpose, for running nodes too.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOperatorToken } from '../src/admin/bootstrap.ts';
import { Harness, isolatedDatabase, OPERATOR_TOKEN, usingPostgres } from './helpers/harness.ts';
import { listeningAddress, type NodeProcess, startNode } from './helpers/node-process.ts';
import { startS3, type TestS3 } from './helpers/s3-server.ts';

const PUBLIC_URL = 'http://wos.test';

describe.runIf(usingPostgres)('three nodes started at once on an empty PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let s3: TestS3;
  let nodes: NodeProcess[] = [];

  beforeAll(async () => {
    database = await isolatedDatabase();
    s3 = await startS3();
  });
  afterAll(async () => {
    for (const node of nodes) if (node.child.exitCode === null) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
    await s3.close();
    await database.drop();
  });

  it('all start, bootstrap once, and share their files', async () => {
    const env = {
      ...database.env,
      ...s3.env,
      PORT: '0',
      WOS_LOG_LEVEL: 'debug',
      WOS_ADMIN_TOKEN: '',
      WOS_PUBLIC_URL: PUBLIC_URL,
      WOS_WORKER_POLL_MS: '200',
    };
    nodes = [0, 1, 2].map(() => startNode(env));
    const [a, b, c] = await Promise.all(nodes.map(listeningAddress));
    const outputs = nodes.map((node) => node.output());
    expect(nodes.map((node) => node.child.exitCode)).toEqual([null, null, null]);
    for (const output of outputs) {
      expect(output).not.toContain('deadlock');
      expect(output).not.toMatch(/"level":(50|60)/);
      expect(output).not.toContain(s3.settings.secretAccessKey);
    }
    const bootstrapped = outputs.filter((output) => output.includes('wos: first start'));
    expect(bootstrapped).toHaveLength(1);
    const apiKey = /API key:\s+(wos_sk_\S+)/.exec(bootstrapped[0]!)![1]!;

    const client = new pg.Client({ connectionString: database.env.WOS_DATABASE_URL });
    await client.connect();
    const schema = database.env.WOS_DATABASE_SCHEMA;
    const workspaces = await client.query(`select name from ${schema}.workspaces`);
    const queues = await client.query(`select count(*)::int as n from ${schema}_jobs.queue`);
    await client.end();
    expect(workspaces.rows).toEqual([{ name: 'Default' }]);
    expect(queues.rows[0].n).toBeGreaterThan(0);

    // An upload intent on one node, its bytes to the second, completion on the third, download from the first.
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const bytes = randomBytes(50_000);
    const intent = await fetch(`${a}/v1/assets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        asset_type: 'document',
        file_name: 'shared.bin',
        mime_type: 'application/octet-stream',
        size_bytes: bytes.length,
      }),
    });
    expect(intent.status).toBe(201);
    const { asset, upload } = await intent.json();
    const put = await fetch(upload.url.replace(PUBLIC_URL, b), { method: 'PUT', body: bytes });
    expect(put.status).toBe(200);
    const completed = await fetch(`${c}/v1/assets/${asset.id}/complete`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(completed.status).toBe(200);
    const download = await fetch(`${a}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_asset_download_url', arguments: { asset_id: asset.id } },
      }),
    });
    const url: string = (await download.json()).result.structuredContent.download.url;
    const file = await fetch(url.replace(PUBLIC_URL, a));
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
  }, 400_000);
});

describe('the operator token of an installation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.close());

  const databaseEnv = () => ({
    WOS_DATA_DIR: h.config.dataDir,
    ...(h.config.databaseUrl ? { WOS_DATABASE_URL: h.config.databaseUrl } : {}),
    ...(h.config.databaseSchema ? { WOS_DATABASE_SCHEMA: h.config.databaseSchema } : {}),
    WOS_LOG_LEVEL: 'silent',
    PORT: '0',
  });

  it('stops a node with another WOS_ADMIN_TOKEN, and changes only through a rotation', async () => {
    const other = `wos_op_${randomBytes(24).toString('base64url')}`;
    const refused = startNode({ ...databaseEnv(), WOS_ADMIN_TOKEN: other });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('wos: WOS_ADMIN_TOKEN differs from the operator token stored');
    expect(refused.output()).toContain('wos operator-token rotate');
    expect(refused.output()).not.toContain(other);
    // The stored token is untouched.
    expect((await h.admin('GET', '/workspaces')).status).toBe(200);

    const rotate = startNode({ ...databaseEnv(), WOS_ADMIN_TOKEN: other }, ['operator-token', 'rotate']);
    expect(await rotate.exited).toBe(0);
    expect(rotate.output()).toContain('"rotated": true');
    // The running node follows at once: the new token works, the old one no longer does.
    const withToken = (token: string) => h.request('GET', '/admin/v1/workspaces', { token });
    expect((await withToken(other)).status).toBe(200);
    expect((await withToken(OPERATOR_TOKEN)).status).toBe(401);
    // A node with the new value starts; one still on the old value does not.
    await expect(ensureOperatorToken(h.db, { ...h.config, adminToken: other })).resolves.toBeUndefined();
    await expect(ensureOperatorToken(h.db, { ...h.config, adminToken: OPERATOR_TOKEN })).rejects.toThrow(
      /WOS_ADMIN_TOKEN differs/,
    );
  }, 400_000);
});
