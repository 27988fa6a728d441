// Asset uploads through the signed URLs: round trips byte for byte (injected and over a real socket),
// completion checks, the upload size limit leaving nothing on disk, search, idempotency and isolation.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const MAX = 256 * 1024;
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start({ env: { WOS_MAX_UPLOAD_BYTES: String(MAX) } });
  ws = await h.workspace('Assets');
  other = await h.workspace('Elsewhere');
});
afterAll(() => h.close());

function post(url: string, body: unknown, token = ws.apiKey) {
  return h.request('POST', url, { token, body });
}
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const local = (url: string) => url.replace('http://wos.test', '');
/** Every file under the asset store, temp files included. */
function storedFiles(): string[] {
  const root = path.join(h.config.dataDir, 'assets');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((p) =>
    fs.statSync(path.join(root, p)).isFile(),
  );
}
function put(url: string, payload: Buffer | Readable, headers: Record<string, string> = {}) {
  return h.service.app.inject({
    method: 'PUT',
    url: local(url),
    payload,
    headers: { 'content-type': 'application/octet-stream', ...headers },
  });
}
async function intent(body: Record<string, unknown>) {
  const res = await post('/v1/assets', {
    asset_type: 'document',
    file_name: 'file.bin',
    mime_type: 'application/octet-stream',
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as {
    asset: any;
    upload: { url: string; method: string; headers: Record<string, string>; expires_at: string };
  };
}

describe('upload intents', () => {
  it('creates a pending asset with a signed PUT URL, an audit event and asset.created', async () => {
    const res = await post('/v1/assets', {
      asset_type: 'image',
      file_name: 'Logo.PNG',
      mime_type: 'Image/PNG',
      size_bytes: 10,
    });
    expect(res.status).toBe(201);
    expect(res.body.asset).toMatchObject({
      asset_type: 'image',
      file_name: 'Logo.PNG',
      mime_type: 'image/png',
      size_bytes: 10,
      status: 'pending',
      checksum_sha256: null,
    });
    expect(res.body.upload).toMatchObject({
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      expires_at: '2026-11-21T13:00:00.000Z',
    });
    expect(res.body.upload.url).toMatch(
      new RegExp(
        `^http://wos\\.test/v1/assets/${res.body.asset.id}/content\\?expires=\\d+&signature=[\\w-]+$`,
      ),
    );
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['asset.created']);
    const lookup = await get(`/v1/assets/records/${res.body.asset.id}`);
    expect(lookup.body.asset.status).toBe('pending');
    const mcp = await h.callTool(ws.mcpToken, 'create_asset_upload_intent', {
      asset_type: 'other',
      file_name: 'via-mcp.bin',
      mime_type: 'application/octet-stream',
      size_bytes: 2,
    });
    expect(mcp.body.asset.status).toBe('pending');
    expect(mcp.body.upload.url).toContain(`/v1/assets/${mcp.body.asset.id}/content?`);
    expect((await put(mcp.body.upload.url, Buffer.from('ok'))).statusCode).toBe(200);
    const completed = await h.callTool(ws.mcpToken, 'complete_asset_upload', { asset_id: mcp.body.asset.id });
    expect(completed.body.asset).toMatchObject({
      status: 'ready',
      checksum_sha256: sha256(Buffer.from('ok')),
    });
  });

  it('validates type, names, size against the limit and the related record', async () => {
    const bad = await post('/v1/assets', {
      asset_type: 'spreadsheet',
      file_name: '../etc/passwd',
      mime_type: 'not a type',
      size_bytes: -1,
    });
    expect(bad.body.error.field_errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'asset_type',
      'file_name',
      'mime_type',
      'size_bytes',
    ]);
    const big = await post('/v1/assets', {
      asset_type: 'video',
      file_name: 'big.mp4',
      mime_type: 'video/mp4',
      size_bytes: MAX + 1,
    });
    expect(big.body.error.field_errors).toEqual([
      { field: 'size_bytes', message: `must not exceed the upload limit of ${MAX} bytes` },
    ]);
    const noId = await post('/v1/assets', {
      asset_type: 'image',
      file_name: 'a.png',
      mime_type: 'image/png',
      size_bytes: 1,
      related_resource_type: 'cms_entry',
    });
    expect(noId.body.error.field_errors[0].field).toBe('related_resource_id');
    const missing = await post('/v1/assets', {
      asset_type: 'image',
      file_name: 'a.png',
      mime_type: 'image/png',
      size_bytes: 1,
      related_resource_type: 'cms_entry',
      related_resource_id: 'ent_missing',
    });
    expect(missing.status).toBe(404);
    expect(await h.db.selectFrom('assets').select('id').where('file_name', '=', 'a.png').execute()).toEqual(
      [],
    );
  });
});

describe('round trip', () => {
  it('uploads, completes and downloads the same bytes through the signed URLs', async () => {
    const bytes = Buffer.concat([Buffer.from([...Array(256).keys()]), randomBytes(200 * 1024)]);
    const { asset, upload } = await intent({
      file_name: 'report.json',
      mime_type: 'application/json',
      size_bytes: bytes.length,
      checksum_sha256: sha256(bytes).toUpperCase(),
    });
    // Sent as JSON media type on purpose: upload bodies are never parsed.
    const uploaded = await put(upload.url, bytes, { 'content-type': 'application/json' });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect(JSON.parse(uploaded.body).upload).toEqual({
      asset_id: asset.id,
      size_bytes: bytes.length,
      sha256: sha256(bytes),
    });
    // Staged until complete verifies them and moves them to the asset's own place.
    expect(storedFiles()).toContain(path.join('uploads', ws.id, asset.id));

    const completed = await post(`/v1/assets/${asset.id}/complete`, {});
    expect(completed.status).toBe(200);
    expect(completed.body.asset).toMatchObject({
      status: 'ready',
      size_bytes: bytes.length,
      checksum_sha256: sha256(bytes),
      ready_at: h.clock.now().toISOString(),
    });
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', completed.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['asset.ready']);
    expect(storedFiles().filter((f) => f.includes(asset.id))).toEqual([path.join(ws.id, asset.id)]);
    const again = await post(`/v1/assets/${asset.id}/complete`, {});
    expect(again.body.asset.ready_at).toBe(completed.body.asset.ready_at);

    const link = await h.callTool(ws.mcpToken, 'get_asset_download_url', { asset_id: asset.id });
    expect(link.body.download).toMatchObject({ method: 'GET', expires_at: '2026-11-21T12:15:00.000Z' });
    const download = await h.service.app.inject({ method: 'GET', url: local(link.body.download.url) });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(bytes)).toBe(true);
    expect(download.headers['content-type']).toBe('application/json');
    expect(download.headers['content-length']).toBe(String(bytes.length));
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="report.json"; filename*=UTF-8''report.json`,
    );

    // The signed calls are usage events of the asset's workspace, not billed.
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('credential_path', '=', 'rest/signed_url')
      .orderBy('id')
      .execute();
    expect(calls.slice(-2).map((c) => [c.method, Number(c.http_status), Number(c.billed_units)])).toEqual([
      ['PUT', 200, 0],
      ['GET', 200, 0],
    ]);
    expect(calls.at(-1)!.request_id).toBe(download.headers['x-request-id']);
  });

  it('streams over a real socket, with a UTF-8 file name', async () => {
    const address = await h.service.app.listen({ port: 0, host: '127.0.0.1' });
    const bytes = randomBytes(150 * 1024);
    const { asset, upload } = await intent({
      asset_type: 'image',
      file_name: 'Grüße "x".png',
      mime_type: 'image/png',
      size_bytes: bytes.length,
    });
    const url = upload.url.replace('http://wos.test', address);
    const chunks = Readable.from([bytes.subarray(0, 50_000), bytes.subarray(50_000)]);
    const res = await fetch(url, {
      method: 'PUT',
      body: Readable.toWeb(chunks) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect((await post(`/v1/assets/${asset.id}/complete`, {})).body.asset.status).toBe('ready');
    const link = (await get(`/v1/assets/${asset.id}`)).body.download.url.replace('http://wos.test', address);
    const download = await fetch(link);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="Gr__e _x_.png"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22x%22.png`,
    );

    // Oversize over a real connection: 413 and the connection is closed, not drained.
    const big = await intent({ size_bytes: 10 });
    const refused = await fetch(big.upload.url.replace('http://wos.test', address), {
      method: 'PUT',
      body: randomBytes(MAX + 1),
    });
    expect(refused.status).toBe(413);
    expect((await refused.json()).error.code).toBe('payload_too_large');
  });
});

describe('completion checks', () => {
  it('refuses a checksum or size mismatch and keeps the asset pending until the right bytes arrive', async () => {
    const good = Buffer.from('the real content');
    const { asset, upload } = await intent({ size_bytes: good.length, checksum_sha256: sha256(good) });
    const none = await post(`/v1/assets/${asset.id}/complete`, {});
    expect(none.body.error.field_errors).toEqual([
      { field: 'asset_id', message: 'no bytes were uploaded yet; PUT them to the upload URL first' },
    ]);

    await put(upload.url, Buffer.from('the fake content'));
    const mismatch = await post(`/v1/assets/${asset.id}/complete`, {});
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('validation_failed');
    expect(mismatch.body.error.field_errors).toEqual([
      {
        field: 'checksum_sha256',
        message: `the uploaded bytes have SHA-256 ${sha256(Buffer.from('the fake content'))}, not the declared one`,
      },
    ]);
    const row = await h.db
      .selectFrom('assets')
      .select(['status', 'checksum_sha256'])
      .where('id', '=', asset.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', checksum_sha256: sha256(good) });
    expect((await get(`/v1/assets/${asset.id}`)).status).toBe(404);

    await put(upload.url, Buffer.from('short'));
    const size = await post(`/v1/assets/${asset.id}/complete`, {});
    expect(size.body.error.field_errors.map((e: { field: string }) => e.field)).toEqual([
      'size_bytes',
      'checksum_sha256',
    ]);

    await put(upload.url, good);
    expect((await post(`/v1/assets/${asset.id}/complete`, {})).body.asset.status).toBe('ready');
    // Content is final once ready.
    const late = await put(upload.url, Buffer.from('replaced?'));
    expect(late.statusCode).toBe(409);
    expect(JSON.parse(late.body).error.code).toBe('conflict');
  });
});

describe('upload size limit', () => {
  it('refuses oversize uploads with 413 and leaves no file, declared or streamed', async () => {
    const before = storedFiles();
    const { asset, upload } = await intent({ size_bytes: MAX });
    const declared = await put(upload.url, randomBytes(MAX + 1));
    expect(declared.statusCode).toBe(413);
    expect(JSON.parse(declared.body).error.code).toBe('payload_too_large');
    // No content-length: the stream is cut at the limit.
    const stream = Readable.from(
      (function* () {
        for (let i = 0; i < 8; i++) yield randomBytes(40 * 1024);
      })(),
    );
    const streamed = await put(upload.url, stream);
    expect(streamed.statusCode).toBe(413);
    expect(storedFiles()).toEqual(before);
    expect(fs.readdirSync(path.join(h.config.dataDir, 'assets', '.tmp'))).toEqual([]);
    const exactly = await put(upload.url, randomBytes(MAX));
    expect(exactly.statusCode).toBe(200);
    expect(storedFiles()).toContain(path.join('uploads', ws.id, asset.id));
  });
});

describe('search, idempotency and isolation', () => {
  it('filters by file name, type, mime type and family, status and related record', async () => {
    const site = (await post('/v1/cms/sites', { name: 'Site' })).body.site;
    const col = (await post('/v1/cms/collections', { site_id: site.id, key: 'c', name: 'C' })).body
      .collection;
    const e = (await post('/v1/cms/entries', { collection_id: col.id, title: 'Entry' })).body.entry;
    const a = (
      await intent({
        asset_type: 'image',
        file_name: 'Holiday-Photo.jpeg',
        mime_type: 'image/jpeg',
        size_bytes: 1,
        related_resource_type: 'cms_entry',
        related_resource_id: e.id,
      })
    ).asset;
    const b = (
      await intent({
        asset_type: 'image',
        file_name: 'diagram.svg',
        mime_type: 'image/svg+xml',
        size_bytes: 1,
      })
    ).asset;
    const c = (
      await intent({ asset_type: 'audio', file_name: 'podcast.mp3', mime_type: 'audio/mpeg', size_bytes: 1 })
    ).asset;
    const ids = async (query: string) =>
      (await get(`/v1/assets?${query}`)).body.assets.map((x: { id: string }) => x.id);
    expect(await ids('query=photo')).toEqual([a.id]);
    expect(await ids('asset_type=audio')).toEqual([c.id]);
    const images = (await get('/v1/assets?mime_type=image/*')).body.assets;
    expect(images.slice(0, 2).map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expect(images.every((x: { mime_type: string }) => x.mime_type.startsWith('image/'))).toBe(true);
    expect(await ids('mime_type=image/svg%2Bxml')).toEqual([b.id]);
    expect(await ids(`related_resource_type=cms_entry&related_resource_id=${e.id}`)).toEqual([a.id]);
    expect((await ids('status=ready')).includes(a.id)).toBe(false);
    expect((await ids('status=pending')).slice(0, 3)).toEqual([c.id, b.id, a.id]);
    const mcp = await h.callTool(ws.mcpToken, 'search_assets', { query: 'PODCAST' });
    expect(mcp.body.assets.map((x: { id: string }) => x.id)).toEqual([c.id]);
    const entryWithAsset = await post('/v1/cms/collections', {
      site_id: site.id,
      key: 'gallery',
      name: 'G',
      fields: [{ key: 'image', type: 'asset', required: true }],
    });
    const ok = await post('/v1/cms/entries', {
      collection_id: entryWithAsset.body.collection.id,
      title: 'Pic',
      fields: { image: a.id },
    });
    expect(ok.status).toBe(201);
  });

  it('replays an intent with a fresh upload URL, and conflicts on a changed body', async () => {
    const body = {
      asset_type: 'other',
      file_name: 'retry.bin',
      mime_type: 'application/octet-stream',
      size_bytes: 3,
      idempotency_key: 'upload-1',
    };
    const first = await post('/v1/assets', body);
    h.clock.advance(60_000);
    const again = await post('/v1/assets', body);
    expect(again.status).toBe(200);
    expect(again.body.asset).toEqual(first.body.asset);
    expect(again.body.upload.expires_at).toBe('2026-11-21T13:01:00.000Z');
    expect((await put(again.body.upload.url, Buffer.from('abc'))).statusCode).toBe(200);
    await post(`/v1/assets/${first.body.asset.id}/complete`, {});
    const afterReady = await post('/v1/assets', body);
    expect(afterReady.body).toMatchObject({ asset: { status: 'ready' }, upload: null });
    const conflict = await post('/v1/assets', { ...body, size_bytes: 4 });
    expect(conflict.status).toBe(409);
  });

  it("answers 404 for another workspace's asset IDs on every operation", async () => {
    const { asset, upload } = await intent({ size_bytes: 2 });
    await put(upload.url, Buffer.from('ok'));
    const responses = [
      await get(`/v1/assets/records/${asset.id}`, other.apiKey),
      await get(`/v1/assets/${asset.id}`, other.apiKey),
      await post(`/v1/assets/${asset.id}/complete`, {}, other.apiKey),
      await h.request('DELETE', `/v1/assets/${asset.id}`, { token: other.apiKey }),
    ];
    for (const res of responses) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    const site = (await post('/v1/cms/sites', { name: 'Mine' })).body.site;
    const related = await post(
      '/v1/assets',
      {
        asset_type: 'image',
        file_name: 'x.png',
        mime_type: 'image/png',
        size_bytes: 1,
        related_resource_type: 'cms_site',
        related_resource_id: site.id,
      },
      other.apiKey,
    );
    expect(related.status).toBe(404);
    const mcp = await h.callTool(other.mcpToken, 'complete_asset_upload', { asset_id: asset.id });
    expect(mcp.body.error.code).toBe('resource_not_found');
    expect(
      (await h.db.selectFrom('assets').select('status').where('id', '=', asset.id).executeTakeFirstOrThrow())
        .status,
    ).toBe('pending');
  });
});
