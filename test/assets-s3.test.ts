// Asset and BI export files in an S3-compatible bucket (s3rver on loopback) through the real server, on
// SQLite and PostgreSQL: an upload streamed over a socket to one node completes and downloads byte for byte
// on another, a BI export made by one node downloads from another, the signed URLs are the service's own,
// the cleanup job deletes from the bucket, and the S3 secret never reaches a log line or an error.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Service } from '../src/app.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { startS3, type TestS3 } from './helpers/s3-server.ts';

const run = promisify(execFile);
let s3: TestS3;
let h: Harness;
/** A second node of the deployment: same database, same bucket, its own S3 client. */
let sibling: Service;
let nodeA: string;
let ws: TestWorkspace;
const logLines: string[] = [];

beforeAll(async () => {
  s3 = await startS3();
  // Every log line of the node, at the most verbose level.
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  h = await Harness.start({
    env: { ...s3.env, WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' },
    logger: pino({ level: 'trace' }, sink),
  });
  sibling = await h.startSibling({ worker: false });
  await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  nodeA = `http://127.0.0.1:${(h.service.app.server.address() as net.AddressInfo).port}`;
  ws = await h.workspace('Files in S3');
});
afterAll(async () => {
  await sibling.app.close();
  await h.close();
  await s3.close();
});

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};
const onSibling = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  sibling.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function bucketKeys(): Promise<string[]> {
  const client = new S3Client({
    endpoint: s3.settings.endpoint,
    region: s3.settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.settings.accessKeyId!, secretAccessKey: s3.settings.secretAccessKey! },
  });
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.settings.bucket }));
  client.destroy();
  return (listed.Contents ?? []).map((o) => o.Key!);
}

describe('files in S3-compatible storage', () => {
  let assetId: string;

  it('takes an upload streamed to one node and serves it byte for byte from another', async () => {
    const bytes = randomBytes(700_000);
    const intent = await h.request('POST', '/v1/assets', {
      token: ws.apiKey,
      body: {
        asset_type: 'document',
        file_name: 'data.bin',
        mime_type: 'application/octet-stream',
        size_bytes: bytes.length,
      },
    });
    expect(intent.status, intent.text).toBe(201);
    assetId = intent.body.asset.id;
    const uploadUrl: string = intent.body.upload.url;
    // The URL is the service's: no bucket, endpoint or workspace in it.
    expect(uploadUrl.startsWith(`http://wos.test/v1/assets/${assetId}/content?`)).toBe(true);
    for (const hidden of [s3.settings.endpoint!, s3.settings.bucket, ws.id])
      expect(uploadUrl).not.toContain(hidden);

    // Chunked transfer over a real socket: the length is known only at the end.
    const chunks = Array.from({ length: 70 }, (_, i) => bytes.subarray(i * 10_000, (i + 1) * 10_000));
    const put = await fetch(`${nodeA}${pathOf(uploadUrl)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: Readable.toWeb(Readable.from(chunks)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(put.status, await put.clone().text()).toBe(200);
    expect((await put.json()).upload).toEqual({
      asset_id: assetId,
      size_bytes: bytes.length,
      sha256: sha256(bytes),
    });

    // Completed on the other node, which finds the staged bytes in the shared bucket.
    const completed = await onSibling('POST', `/v1/assets/${assetId}/complete`, {});
    expect(completed.statusCode, completed.body).toBe(200);
    expect(completed.json().asset).toMatchObject({
      status: 'ready',
      size_bytes: bytes.length,
      checksum_sha256: sha256(bytes),
    });

    const downloadUrl = await downloadUrlOf(assetId);
    expect(downloadUrl).not.toContain(ws.id);
    const download = await sibling.app.inject({ method: 'GET', url: pathOf(downloadUrl) });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-length']).toBe(String(bytes.length));
    expect(download.rawPayload.equals(bytes)).toBe(true);

    expect(await bucketKeys()).toEqual([`${ws.id}/${assetId}`]);
    // Nothing on either node's disk.
    expect(fs.existsSync(path.join(h.config.dataDir, 'assets'))).toBe(false);
  });

  it('serves a BI export made by one node from the other', async () => {
    for (const name of ['Alpha deal', 'Beta deal']) {
      const res = await h.request('POST', '/v1/deals', {
        token: ws.apiKey,
        body: { name, amount_cents: 100, currency: 'EUR' },
      });
      expect(res.status, res.text).toBe(201);
    }
    const query = await h.request('POST', '/v1/bi/queries/run', {
      token: ws.apiKey,
      body: {
        name: 'Deals',
        dataset_key: 'crm_pipeline',
        dimensions: ['deal_name'],
        measures: [{ aggregate: 'count', as: 'deals' }],
      },
    });
    expect(query.status, query.text).toBe(200);
    const created = await h.request('POST', '/v1/bi/exports', {
      token: ws.apiKey,
      body: { name: 'Deals', format: 'csv', query_id: query.body.query.id },
    });
    expect(created.status, created.text).toBe(202);
    const exportId: string = created.body.export.id;
    const done = await vi.waitFor(
      async () => {
        await h.worker!.tick();
        const found = (await onSibling('GET', `/v1/bi/exports/${exportId}`)).json().export;
        if (found.status !== 'completed') throw new Error(found.status);
        return found;
      },
      { timeout: 30_000, interval: 50 },
    );
    const expected = 'deal_name,deals\nAlpha deal,1\nBeta deal,1\n';
    expect(done).toMatchObject({ row_count: 2, checksum_sha256: sha256(expected) });
    const file = await sibling.app.inject({ method: 'GET', url: pathOf(done.download.url) });
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe(expected);
    expect(await bucketKeys()).toContain(`${ws.id}/${done.asset_id}`);
  });

  it('deletes an archived asset from the bucket in the cleanup job', async () => {
    expect((await h.request('DELETE', `/v1/assets/${assetId}`, { token: ws.apiKey })).status).toBe(200);
    h.clock.advance(10 * 60 * 1000);
    await vi.waitFor(
      async () => {
        await h.worker!.tick();
        expect(await bucketKeys()).not.toContain(`${ws.id}/${assetId}`);
      },
      { timeout: 30_000, interval: 100 },
    );
  });

  it('never logs the secret, and a node the bucket refuses stops at start without printing it', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(s3.settings.secretAccessKey);
    // An access key the server does not know (s3rver checks the key, not V4 signatures).
    const secret = `other-secret-${randomBytes(12).toString('hex')}`;
    const env = {
      ...process.env,
      ...s3.env,
      WOS_S3_ACCESS_KEY_ID: 'UNKNOWNKEY',
      WOS_S3_SECRET_ACCESS_KEY: secret,
      WOS_DATA_DIR: h.config.dataDir,
      ...(h.config.databaseUrl ? { WOS_DATABASE_URL: h.config.databaseUrl } : {}),
      ...(h.config.databaseSchema ? { WOS_DATABASE_SCHEMA: h.config.databaseSchema } : {}),
      WOS_LOG_LEVEL: 'trace',
      PORT: '0',
    };
    const failed = await run(process.execPath, ['bin/wos.js', 'serve'], { env, timeout: 150_000 }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`wos: WOS_ASSET_STORAGE=s3: the bucket "${s3.settings.bucket}"`);
    expect(failed?.stderr).toContain('HTTP 403, access denied');
    expect(`${failed?.stdout}${failed?.stderr}`).not.toContain(secret);
  }, 160_000);
});

/** The download URL as get_asset_download_url gives it. */
async function downloadUrlOf(id: string): Promise<string> {
  const link = await h.callTool(ws.mcpToken, 'get_asset_download_url', { asset_id: id });
  return link.body.download.url;
}
