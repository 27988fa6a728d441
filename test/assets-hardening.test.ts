// Asset hardening: signed URLs die with their workspace or asset, content is final once completed (even
// against a PUT still streaming), a PUT may not pass its intent's size_bytes, the asset_bytes entitlement,
// and the cleanup job (bytes of failed, expired and archived assets; partial files, also at start-up).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The job runs on the worker (pg-boss on PostgreSQL), not in the test's call: wait for its effects. */
const WAIT = { timeout: 10_000, interval: 50 };
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const local = (url: string) => url.replace('http://wos.test', '');
const errorOf = (res: { body: string }) => JSON.parse(res.body).error;

/** Helpers bound to one harness and workspace. */
function assetsOf(h: Harness, ws: TestWorkspace) {
  const root = () => path.join(h.config.dataDir, 'assets');
  const api = {
    root,
    /** Every file under the asset store, relative to it (staged uploads and partial files included). */
    files(): string[] {
      if (!fs.existsSync(root())) return [];
      return (fs.readdirSync(root(), { recursive: true }) as string[])
        .filter((p) => fs.statSync(path.join(root(), p)).isFile())
        .sort();
    },
    async intent(body: Record<string, unknown>, token = ws.apiKey) {
      return h.request('POST', '/v1/assets', {
        token,
        body: {
          asset_type: 'document',
          file_name: 'file.bin',
          mime_type: 'application/octet-stream',
          ...body,
        },
      });
    },
    put(url: string, payload: Buffer | Readable | string, headers: Record<string, string> = {}) {
      return h.service.app.inject({
        method: 'PUT',
        url: local(url),
        payload,
        headers: { 'content-type': 'application/octet-stream', ...headers },
      });
    },
    get: (url: string) => h.service.app.inject({ method: 'GET', url: local(url) }),
    complete: (id: string) => h.request('POST', `/v1/assets/${id}/complete`, { token: ws.apiKey, body: {} }),
    archive: (id: string) => h.request('DELETE', `/v1/assets/${id}`, { token: ws.apiKey }),
    async downloadUrl(id: string): Promise<string> {
      const res = await h.request('GET', `/v1/assets/${id}`, { token: ws.apiKey });
      expect(res.status, res.text).toBe(200);
      return res.body.download.url;
    },
    /** A pending asset with its upload URL, and optionally bytes already PUT. */
    async pending(text?: string, size = text === undefined ? 4 : Buffer.byteLength(text)) {
      const created = await api.intent({ size_bytes: size });
      expect(created.status, created.text).toBe(201);
      if (text !== undefined) expect((await api.put(created.body.upload.url, text)).statusCode).toBe(200);
      return { id: created.body.asset.id as string, uploadUrl: created.body.upload.url as string };
    },
    async ready(text: string) {
      const asset = await api.pending(text);
      expect((await api.complete(asset.id)).status).toBe(200);
      return { ...asset, downloadUrl: await api.downloadUrl(asset.id) };
    },
  };
  return api;
}

describe('assets through the signed URLs', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let a: ReturnType<typeof assetsOf>;

  beforeAll(async () => {
    h = await Harness.start();
    ws = await h.workspace('Hardening');
    a = assetsOf(h, ws);
  });
  afterAll(() => h.close());

  it('answers 404 on the upload and download URLs of a deleted workspace', async () => {
    const doomed = await h.workspace('Doomed');
    const d = assetsOf(h, doomed);
    const ready = await d.ready('kept for ever?');
    const pending = await d.pending();
    expect((await d.get(ready.downloadUrl)).statusCode).toBe(200);

    expect((await h.admin('DELETE', `/workspaces/${doomed.id}`)).status).toBe(200);
    const download = await d.get(ready.downloadUrl);
    expect(download.statusCode).toBe(404);
    expect(errorOf(download).code).toBe('resource_not_found');
    expect(download.body).not.toContain('kept for ever?');
    const upload = await d.put(pending.uploadUrl, 'late');
    expect(upload.statusCode).toBe(404);
    expect(errorOf(upload).code).toBe('resource_not_found');
    expect(a.files().filter((f) => f.includes(pending.id))).toEqual([]);
  });

  it('answers 404 on the upload URL of an archived pending asset and the download URL of an archived one', async () => {
    const pending = await a.pending();
    const ready = await a.ready('archived');
    expect((await a.archive(pending.id)).status).toBe(200);
    expect((await a.archive(ready.id)).status).toBe(200);
    const upload = await a.put(pending.uploadUrl, 'late');
    expect(upload.statusCode).toBe(404);
    expect(errorOf(upload).code).toBe('resource_not_found');
    const download = await a.get(ready.downloadUrl);
    expect(download.statusCode).toBe(404);
    expect(errorOf(download).code).toBe('resource_not_found');
  });

  it('answers 409 conflict to a PUT after complete, and serves the verified bytes', async () => {
    const ready = await a.ready('final');
    const late = await a.put(ready.uploadUrl, 'FINAL');
    expect(late.statusCode).toBe(409);
    expect(errorOf(late)).toMatchObject({
      code: 'conflict',
      docs_url: 'http://wos.test/docs/api/errors#conflict',
    });
    expect((await a.get(ready.downloadUrl)).body).toBe('final');
    const page = await h.request('GET', '/docs/api/errors');
    expect(page.text).toContain('id="conflict"');
    expect(page.text).toContain('HTTP 409');
  });

  it('keeps what complete verified when a slower PUT finishes after it', async () => {
    const { id, uploadUrl } = await a.pending('good bytes');
    // A second PUT of other bytes of the same size is still streaming when complete runs.
    const body = new PassThrough();
    const slow = a.put(uploadUrl, body);
    body.write('evil');
    await vi.waitFor(() => expect(a.files().some((f) => f.endsWith('.part'))).toBe(true));
    const completed = await a.complete(id);
    expect(completed.body.asset).toMatchObject({ status: 'ready', checksum_sha256: sha256('good bytes') });
    body.end(' bytes');
    const finished = await slow;
    expect(finished.statusCode).toBe(409);
    expect(errorOf(finished).code).toBe('conflict');
    expect((await a.get(await a.downloadUrl(id))).body).toBe('good bytes');
    expect(a.files().filter((f) => f.includes(id))).toEqual([path.join(ws.id, id)]);
  });

  it("refuses a PUT beyond the intent's size_bytes with 413 and keeps nothing", async () => {
    const { id, uploadUrl } = await a.pending(undefined, 100);
    const declared = await a.put(uploadUrl, Buffer.alloc(101));
    expect(declared.statusCode).toBe(413);
    expect(errorOf(declared)).toMatchObject({
      code: 'payload_too_large',
      message: 'The upload is larger than the 100 bytes its intent declared (size_bytes).',
    });
    // Without a Content-Length the body is counted while it streams and cut past 100 bytes.
    const streamed = await a.put(
      uploadUrl,
      Readable.from([Buffer.alloc(60), Buffer.alloc(60), Buffer.alloc(60)]),
    );
    expect(streamed.statusCode).toBe(413);
    expect(a.files().filter((f) => f.includes(id) || f.endsWith('.part'))).toEqual([]);
    expect((await a.complete(id)).body.error.field_errors[0].field).toBe('asset_id');
    expect((await a.put(uploadUrl, Buffer.alloc(100))).statusCode).toBe(200);
    expect((await a.complete(id)).body.asset.status).toBe('ready');
  });

  it('limits the bytes of ready and pending assets with the asset_bytes entitlement', async () => {
    const limited = await h.workspace('Limited');
    const l = assetsOf(h, limited);
    const patch = await h.admin('PATCH', `/workspaces/${limited.id}`, { entitlements: { asset_bytes: 100 } });
    expect(patch.body.workspace.entitlements).toEqual({ asset_bytes: 100 });
    const ready = await l.ready('x'.repeat(60));
    expect((await l.intent({ size_bytes: 30 })).status).toBe(201);
    const over = await l.intent({ size_bytes: 11 });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({
      code: 'billing_limit_exceeded',
      message: 'The workspace may store at most 100 bytes of assets (asset_bytes); 90 are stored or pending.',
    });
    const mcp = await h.callTool(limited.mcpToken, 'create_asset_upload_intent', {
      asset_type: 'other',
      file_name: 'x',
      mime_type: 'text/plain',
      size_bytes: 11,
    });
    expect(mcp.body.error.code).toBe('billing_limit_exceeded');
    expect((await l.intent({ size_bytes: 10 })).status).toBe(201);
    const rows = await h.db
      .selectFrom('assets')
      .select('id')
      .where('workspace_id', '=', limited.id)
      .execute();
    expect(rows).toHaveLength(3);

    // Archived assets leave room; another workspace is not limited.
    await l.archive(ready.id);
    expect((await l.intent({ size_bytes: 60 })).status).toBe(201);
    expect((await a.intent({ size_bytes: 1000 })).status).toBe(201);
    // Pending intents stop counting once their upload window (24 hours) has closed.
    h.clock.advance(DAY_MS + 1000);
    expect((await l.intent({ size_bytes: 100 })).status).toBe(201);
    await h.admin('PATCH', `/workspaces/${limited.id}`, { entitlements: { asset_bytes: null } });
    expect((await l.intent({ size_bytes: 5000 })).status).toBe(201);
  });
});

describe('cleanup of unreachable bytes', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let a: ReturnType<typeof assetsOf>;

  beforeAll(async () => {
    h = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '20' } });
    ws = await h.workspace('Cleanup');
    a = assetsOf(h, ws);
  });
  afterAll(() => h.close());

  /** The next interval's cleanup job: the sweep enqueues one per 10 minutes of the service clock. */
  async function runCleanup() {
    h.clock.advance(10 * 60 * 1000);
    await h.worker!.tick();
  }

  it('deletes bytes of failed, expired and archived assets, stray staged uploads and stale partial files', async () => {
    // Failed: bytes that do not match the intent are discarded by complete at once.
    const intent = await a.intent({ size_bytes: 5, checksum_sha256: sha256('right') });
    const failed = { id: intent.body.asset.id as string, uploadUrl: intent.body.upload.url as string };
    expect((await a.put(failed.uploadUrl, 'wrong')).statusCode).toBe(200);
    expect((await a.complete(failed.id)).body.error.code).toBe('validation_failed');
    expect(a.files().filter((f) => f.includes(failed.id))).toEqual([]);
    // ... and bytes uploaded again but never completed go with the expired asset.
    expect((await a.put(failed.uploadUrl, 'wrung')).statusCode).toBe(200);
    const expired = await a.pending('never completed');
    const archived = await a.ready('archived bytes');
    const kept = await a.ready('kept');
    expect((await a.archive(archived.id)).status).toBe(200);
    // A staged upload whose asset is no longer pending (left by a PUT that lost the race with complete).
    fs.mkdirSync(path.join(a.root(), 'uploads', ws.id), { recursive: true });
    fs.writeFileSync(path.join(a.root(), 'uploads', ws.id, kept.id), 'stray');
    // Partial files: one untouched for two hours (a crashed write), one still being written.
    fs.mkdirSync(path.join(a.root(), '.tmp'), { recursive: true });
    const stale = path.join(a.root(), '.tmp', 'crashed.part');
    const fresh = path.join(a.root(), '.tmp', 'writing.part');
    fs.writeFileSync(stale, 'half');
    fs.writeFileSync(fresh, 'half');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);

    await runCleanup();
    await vi.waitFor(() => expect(a.files()).not.toContain(path.join(ws.id, archived.id)), WAIT);
    expect(a.files()).toEqual(
      [
        path.join('.tmp', 'writing.part'),
        path.join('uploads', ws.id, expired.id),
        path.join('uploads', ws.id, failed.id),
        path.join(ws.id, kept.id),
      ].sort(),
    );
    // The job removes the bytes, then marks the row: wait for the mark too (the job may still be running).
    const archivedRow = () =>
      h.db
        .selectFrom('assets')
        .select('content_deleted_at')
        .where('id', '=', archived.id)
        .executeTakeFirstOrThrow();
    await vi.waitFor(async () => expect((await archivedRow()).content_deleted_at).not.toBeNull(), WAIT);

    // A day later the pending assets have expired: their bytes go, completing them is a conflict.
    h.clock.advance(DAY_MS);
    await runCleanup();
    const purged = (id: string) =>
      h.db.selectFrom('assets').select('content_deleted_at').where('id', '=', id).executeTakeFirstOrThrow();
    await vi.waitFor(async () => {
      expect((await purged(failed.id)).content_deleted_at).not.toBeNull();
      expect((await purged(expired.id)).content_deleted_at).not.toBeNull();
      expect(a.files()).toEqual([path.join('.tmp', 'writing.part'), path.join(ws.id, kept.id)].sort());
    }, WAIT);
    const late = await a.complete(expired.id);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('conflict');
    expect((await a.get(await a.downloadUrl(kept.id))).body).toBe('kept');
  });

  it('removes every partial file at start-up', async () => {
    fs.mkdirSync(path.join(a.root(), '.tmp'), { recursive: true });
    fs.writeFileSync(path.join(a.root(), '.tmp', 'crash-before-restart.part'), 'half');
    expect(a.files().filter((f) => f.endsWith('.part')).length).toBeGreaterThan(0);
    h = await h.restart({ worker: false });
    expect(a.files().filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});
