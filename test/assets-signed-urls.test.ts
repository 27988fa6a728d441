// Signed asset URLs: tampered, expired and foreign signatures get 403; pending and archived assets 404;
// archiving hides an asset from search, lookups and downloads while its history stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, MutableClock, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let clock: MutableClock;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  clock = new MutableClock();
  h = await Harness.start({ clock });
  ws = await h.workspace('Signed');
  other = await h.workspace('Other');
});
afterAll(() => h.close());

const local = (url: string) => url.replace('http://wos.test', '');
const content = (method: 'GET' | 'PUT', url: string, payload?: string) =>
  h.service.app.inject({
    method,
    url: local(url),
    payload,
    headers: payload ? { 'content-type': 'text/plain' } : {},
  });
const codeOf = (res: { body: string }) => JSON.parse(res.body).error.code;

/** A ready asset with its upload and download URLs. */
async function readyAsset(workspace: TestWorkspace, text = 'hello') {
  const created = await h.request('POST', '/v1/assets', {
    token: workspace.apiKey,
    body: {
      asset_type: 'document',
      file_name: 'hello.txt',
      mime_type: 'text/plain',
      size_bytes: Buffer.byteLength(text),
    },
  });
  const { asset, upload } = created.body;
  expect((await content('PUT', upload.url, text)).statusCode).toBe(200);
  await h.request('POST', `/v1/assets/${asset.id}/complete`, { token: workspace.apiKey, body: {} });
  const download = (await h.request('GET', `/v1/assets/${asset.id}`, { token: workspace.apiKey })).body
    .download;
  return { asset, uploadUrl: upload.url as string, downloadUrl: download.url as string };
}

function withParam(url: string, name: string, value: string) {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

describe('signatures', () => {
  it('serves a valid URL and refuses tampered ones with 403 signature_invalid', async () => {
    const { asset, downloadUrl } = await readyAsset(ws);
    const ok = await content('GET', downloadUrl);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('hello');
    expect(ok.headers['content-type']).toBe('text/plain');
    const head = await h.service.app.inject({ method: 'HEAD', url: local(downloadUrl) });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('5');
    expect(head.body).toBe('');

    const signature = new URL(downloadUrl).searchParams.get('signature')!;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const expires = Number(new URL(downloadUrl).searchParams.get('expires'));
    const tampered = [
      withParam(downloadUrl, 'signature', flipped),
      withParam(downloadUrl, 'expires', String(expires + 3600)),
      withParam(downloadUrl, 'signature', ''),
      downloadUrl.split('?')[0]!,
      `${downloadUrl}&signature=${signature}`,
    ];
    for (const url of tampered) {
      const res = await content('GET', url);
      expect(res.statusCode, url).toBe(403);
      expect(codeOf(res)).toBe('signature_invalid');
      expect(res.body).not.toContain('hello');
    }
    const unknown = await content('GET', downloadUrl.replace(asset.id, 'ast_01NOTANASSET0000000000000'));
    expect(unknown.statusCode).toBe(403);
    const errors = await h.request('GET', '/docs/api/errors');
    expect(errors.text).toContain('id="signature_invalid"');
  });

  it("refuses foreign signatures: another asset's, another workspace's, and an upload URL used to download", async () => {
    const mine = await readyAsset(ws, 'mine');
    const second = await readyAsset(ws, 'second');
    const theirs = await readyAsset(other, 'theirs');
    const query = (url: string) => url.split('?')[1];
    const foreign = [
      `${mine.downloadUrl.split('?')[0]}?${query(second.downloadUrl)}`,
      `${mine.downloadUrl.split('?')[0]}?${query(theirs.downloadUrl)}`,
      `${theirs.downloadUrl.split('?')[0]}?${query(mine.downloadUrl)}`,
      `${mine.downloadUrl.split('?')[0]}?${query(mine.uploadUrl)}`,
    ];
    for (const url of foreign) {
      const res = await content('GET', url);
      expect(res.statusCode, url).toBe(403);
      expect(codeOf(res)).toBe('signature_invalid');
    }
    // A download URL cannot upload either.
    const put = await content('PUT', mine.downloadUrl, 'overwrite');
    expect(put.statusCode).toBe(403);
    expect((await content('GET', mine.downloadUrl)).body).toBe('mine');
  });

  it('expires download URLs after 15 minutes by default, or after expires_in_seconds', async () => {
    const { asset, downloadUrl } = await readyAsset(ws);
    const long = await h.callTool(ws.mcpToken, 'get_asset_download_url', {
      asset_id: asset.id,
      expires_in_seconds: 3600,
    });
    expect(long.body.download.expires_at).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());
    clock.advance(15 * 60_000);
    expect((await content('GET', downloadUrl)).statusCode).toBe(200);
    clock.advance(1000);
    const expired = await content('GET', downloadUrl);
    expect(expired.statusCode).toBe(403);
    expect(JSON.parse(expired.body).error).toMatchObject({
      code: 'signature_invalid',
      message: 'This signed URL has expired; request a new one.',
    });
    expect((await content('GET', long.body.download.url)).statusCode).toBe(200);
    const tooLong = await h.request('GET', `/v1/assets/${asset.id}?expires_in_seconds=9999999`, {
      token: ws.apiKey,
    });
    expect(tooLong.body.error.field_errors[0].field).toBe('expires_in_seconds');
  });

  it('expires upload URLs after an hour', async () => {
    const created = await h.request('POST', '/v1/assets', {
      token: ws.apiKey,
      body: { asset_type: 'other', file_name: 'late.txt', mime_type: 'text/plain', size_bytes: 4 },
    });
    clock.advance(61 * 60_000);
    const late = await content('PUT', created.body.upload.url, 'late');
    expect(late.statusCode).toBe(403);
    expect(codeOf(late)).toBe('signature_invalid');
  });
});

describe('pending and archived assets', () => {
  it('404s a pending asset on download but shows it on lookup', async () => {
    const created = await h.request('POST', '/v1/assets', {
      token: ws.apiKey,
      body: { asset_type: 'image', file_name: 'pending.png', mime_type: 'image/png', size_bytes: 3 },
    });
    const id = created.body.asset.id;
    const download = await h.request('GET', `/v1/assets/${id}`, { token: ws.apiKey });
    expect(download.status).toBe(404);
    expect(download.body.error.code).toBe('resource_not_found');
    expect((await h.request('GET', `/v1/assets/records/${id}`, { token: ws.apiKey })).body.asset.status).toBe(
      'pending',
    );
  });

  it('hides an archived asset from search, lookup and download, keeps its history and refuses issued URLs', async () => {
    const { asset, downloadUrl } = await readyAsset(ws, 'to archive');
    const archived = await h.request('DELETE', `/v1/assets/${asset.id}`, { token: ws.apiKey });
    expect(archived.status).toBe(200);
    expect(archived.body.asset).toMatchObject({ status: 'archived', archived_at: clock.now().toISOString() });
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', archived.body.request_id)
      .execute();
    expect(events.map((e) => e.name)).toEqual(['asset.archived']);

    const search = await h.request('GET', '/v1/assets?query=hello', { token: ws.apiKey });
    expect(search.body.assets.map((a: { id: string }) => a.id)).not.toContain(asset.id);
    expect((await h.request('GET', `/v1/assets/records/${asset.id}`, { token: ws.apiKey })).status).toBe(404);
    expect((await h.request('GET', `/v1/assets/${asset.id}`, { token: ws.apiKey })).status).toBe(404);
    const issued = await content('GET', downloadUrl);
    expect(issued.statusCode).toBe(404);
    expect(codeOf(issued)).toBe('resource_not_found');
    expect((await h.callTool(ws.mcpToken, 'archive_asset', { asset_id: asset.id })).body.error.code).toBe(
      'resource_not_found',
    );

    const history = await h.request('GET', `/v1/history?target_type=asset&target_id=${asset.id}`, {
      token: ws.apiKey,
    });
    expect(history.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'archive',
      'complete',
      'create',
    ]);
    const row = await h.db
      .selectFrom('assets')
      .select(['status', 'archived_at'])
      .where('id', '=', asset.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('archived');
    const summary = await h.request('GET', '/v1/workspace', { token: ws.apiKey });
    expect(summary.body.workspace.summary.assets.ready_assets).toBeGreaterThan(0);
  });
});
