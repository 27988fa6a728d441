// BI exports end to end through the real app: create (202, queued) -> the worker runs the job -> completed
// with row count, size, checksum and an asset -> the file downloaded through its signed URL equals the
// query's rows (CSV quoting, money as integer cents, booleans; JSON lines); a fresh URL on each read and an
// expired one refused; another workspace's query 404; a failed export (a draft metric of another credential)
// with its code and attempts; a scheduled refresh writing a new file.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const MINUTE = 60_000;
const clock = new MutableClock(new Date('2026-11-21T12:00:00.000Z'));
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let queryId: string;

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });

/** The path and query of a URL the service issued (requests go through the app, not the network). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Ticks the worker until the export's run has finished; returns the export as a lookup reads it. */
async function finished(exportId: string, token = ws.apiKey) {
  return vi.waitFor(
    async () => {
      await h.worker!.tick();
      const res = await call('GET', `/v1/bi/exports/${exportId}`, undefined, token);
      expect(res.status, res.text).toBe(200);
      const found = res.body.export;
      if (found.status === 'queued' || found.status === 'running') throw new Error(found.status);
      return found as Record<string, any>;
    },
    { timeout: 30_000, interval: 50 },
  );
}

async function createExport(body: Record<string, unknown>, token = ws.apiKey) {
  const res = await call('POST', '/v1/bi/exports', body, token);
  expect(res.status, res.text).toBe(202);
  return res.body as { export: Record<string, any>; run: Record<string, any> };
}

// Three deals whose names need CSV quoting: a comma, double quotes, a line break.
const DEALS = [
  { name: 'Acme, Inc.', amount_cents: 120_000, currency: 'EUR' },
  { name: 'Multi\nline', amount_cents: 5_050, currency: 'USD' },
  { name: 'The "Big" one', amount_cents: 99, currency: 'EUR' },
];

// The saved query's rows in the stream's order (group keys ascending), by hand.
const EXPECTED_CSV =
  'deal_name,is_open,currency,value_cents,deals\n' +
  '"Acme, Inc.",true,EUR,120000,1\n' +
  '"Multi\nline",true,USD,5050,1\n' +
  '"The ""Big"" one",true,EUR,99,1\n';
const EXPECTED_ROWS = [
  { deal_name: 'Acme, Inc.', is_open: true, currency: 'EUR', value_cents: 120000, deals: 1 },
  { deal_name: 'Multi\nline', is_open: true, currency: 'USD', value_cents: 5050, deals: 1 },
  { deal_name: 'The "Big" one', is_open: true, currency: 'EUR', value_cents: 99, deals: 1 },
];

beforeAll(async () => {
  h = await Harness.start({ clock, env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' } });
  ws = await h.workspace('Exports');
  other = await h.workspace('Other');
  for (const deal of DEALS) {
    const res = await call('POST', '/v1/deals', deal);
    expect(res.status, res.text).toBe(201);
  }
  const run = await call('POST', '/v1/bi/queries/run', {
    name: 'Deals by name',
    dataset_key: 'crm_pipeline',
    dimensions: ['deal_name', 'is_open', 'currency'],
    measures: [
      { column: 'amount_cents', aggregate: 'sum', as: 'value_cents' },
      { aggregate: 'count', as: 'deals' },
    ],
    sort: [{ column: 'value_cents', direction: 'desc' }],
    limit: 2,
  });
  expect(run.status, run.text).toBe(200);
  // The interactive run stops at its limit (2); the export reads every row.
  expect(run.body.result.truncated).toBe(true);
  queryId = run.body.query.id;
});
afterAll(() => h.close());

describe(`BI exports (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let csvExport: Record<string, any>;

  it('answers at once with the export queued and its BI run, then completes with the file', async () => {
    const created = await createExport({ name: 'Deals, all', format: 'csv', query_id: queryId });
    expect(created.export).toMatchObject({
      name: 'Deals, all',
      format: 'csv',
      content_type: 'text/csv',
      query_id: queryId,
      status: 'queued',
      attempts: 0,
      error: null,
      row_count: null,
      asset_id: null,
      download: null,
      completed_at: null,
    });
    expect(created.export.id).toMatch(/^biexp_/);
    expect(created.run).toMatchObject({
      id: created.export.run_id,
      run_type: 'bi_export',
      status: 'queued',
      trigger: 'manual',
      related: [
        { type: 'bi_export', id: created.export.id },
        { type: 'bi_query', id: queryId },
      ],
    });

    csvExport = await finished(created.export.id);
    expect(csvExport).toMatchObject({
      status: 'completed',
      attempts: 1,
      error: null,
      row_count: 3,
      size_bytes: Buffer.byteLength(EXPECTED_CSV),
      checksum_sha256: sha256(EXPECTED_CSV),
    });
    expect(csvExport.asset_id).toMatch(/^ast_/);
    expect(csvExport.completed_at).not.toBeNull();
    expect(csvExport.download.method).toBe('GET');
    // Valid 15 minutes from the read.
    expect(csvExport.download.expires_at).toBe(new Date(clock.now().getTime() + 15 * MINUTE).toISOString());

    const run = await call('GET', `/v1/bi/runs/${csvExport.run_id}`);
    expect(run.body.run).toMatchObject({ status: 'completed', attempts: 1, trigger: 'manual', row_count: 3 });
  });

  it('serves the CSV through the signed URL: the query rows, quoted, money in integer cents', async () => {
    const file = await h.request('GET', pathOf(csvExport.download.url));
    expect(file.status, file.text).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv');
    expect(file.text).toBe(EXPECTED_CSV);
    // The asset the file is: ready, with the same size and digest.
    const asset = await h.db
      .selectFrom('assets')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('id', '=', csvExport.asset_id)
      .executeTakeFirstOrThrow();
    expect(asset).toMatchObject({
      status: 'ready',
      mime_type: 'text/csv',
      file_name: 'Deals, all.csv',
      checksum_sha256: sha256(EXPECTED_CSV),
      related_resource_type: 'bi_export',
      related_resource_id: csvExport.id,
    });
    expect(Number(asset.size_bytes)).toBe(Buffer.byteLength(EXPECTED_CSV));
  });

  it('signs a fresh URL on each read and refuses an expired one', async () => {
    const first = csvExport.download.url as string;
    clock.advance(MINUTE);
    const again = (await call('GET', `/v1/bi/exports/${csvExport.id}`)).body.export;
    expect(again.download.url).not.toBe(first);
    const listed = await call('GET', `/v1/bi/exports?query_id=${queryId}`);
    const inList = listed.body.exports.find((e: { id: string }) => e.id === csvExport.id);
    expect(inList.download.url).toBe(again.download.url);

    clock.advance(15 * MINUTE);
    const expired = await h.request('GET', pathOf(first));
    expect(expired.status).toBe(403);
    expect(expired.body.error.code).toBe('signature_invalid');
    const fresh = (await call('GET', `/v1/bi/exports/${csvExport.id}`)).body.export;
    const file = await h.request('GET', pathOf(fresh.download.url));
    expect(file.status).toBe(200);
    expect(file.text).toBe(EXPECTED_CSV);
  });

  it('exports JSON lines through MCP, readable by get_record', async () => {
    const created = await h.callTool(ws.mcpToken, 'create_bi_export', {
      name: 'Deals as lines',
      format: 'jsonl',
      query_id: queryId,
    });
    expect(created.result.isError, JSON.stringify(created.result)).toBeFalsy();
    expect(created.body.export.status).toBe('queued');
    const done = await finished(created.body.export.id);
    expect(done).toMatchObject({ status: 'completed', row_count: 3, content_type: 'application/x-ndjson' });
    const file = await h.request('GET', pathOf(done.download.url));
    expect(file.headers['content-type']).toBe('application/x-ndjson');
    const lines = file.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line))).toEqual(EXPECTED_ROWS);
    expect(done.checksum_sha256).toBe(sha256(file.text));

    const record = await h.callTool(ws.mcpToken, 'get_record', { type: 'bi_export', id: done.id });
    expect(record.body.record).toMatchObject({ id: done.id, status: 'completed', asset_id: done.asset_id });
    expect(record.body.record.download.url).toContain(`/v1/assets/${done.asset_id}/content?expires=`);
    const listed = await h.callTool(ws.mcpToken, 'list_bi_exports', {});
    expect(listed.body.exports.map((e: { id: string }) => e.id)).toEqual([done.id, csvExport.id]);
  });

  it('replays a start with the same idempotency key as the export it made', async () => {
    const body = { name: 'Once', format: 'csv', query_id: queryId, idempotency_key: 'export-once' };
    const first = await createExport(body);
    const replay = await call('POST', '/v1/bi/exports', body);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.export.id).toBe(first.export.id);
    expect(replay.body.run.id).toBe(first.run.id);
    await finished(first.export.id);
  });

  it("refuses another workspace's query and export (404), bad input (400), and needs bi:write", async () => {
    const foreign = await call(
      'POST',
      '/v1/bi/exports',
      { name: 'x', format: 'csv', query_id: queryId },
      other.apiKey,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
    const missing = await call('POST', '/v1/bi/exports', {
      name: 'x',
      format: 'csv',
      query_id: 'biq_missing',
    });
    expect(missing.status).toBe(404);
    expect((await call('GET', `/v1/bi/exports/${csvExport.id}`, undefined, other.apiKey)).status).toBe(404);
    expect((await call('GET', '/v1/bi/exports', undefined, other.apiKey)).body.exports).toEqual([]);

    const bad = await call('POST', '/v1/bi/exports', {
      name: 'x',
      format: 'xlsx',
      query_id: queryId,
      extra: 1,
    });
    expect(bad.status).toBe(400);
    const fields = bad.body.error.field_errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['format', 'extra']));
    const noName = await call('POST', '/v1/bi/exports', { format: 'csv', query_id: queryId });
    expect(noName.status).toBe(400);
    expect(noName.body.error.field_errors.map((e: { field: string }) => e.field)).toContain('name');

    const reader = await h.createCredential(ws.id, 'api_key', ['bi:read']);
    const refused = await call(
      'POST',
      '/v1/bi/exports',
      { name: 'x', format: 'csv', query_id: queryId },
      reader.token,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('missing_required_scope');
  });

  it('fails an export whose query the run may not execute, with the code, message and attempts', async () => {
    // A draft metric is usable by its creator only: the API key saves a query with it, the MCP token exports.
    const metric = await call('POST', '/v1/bi/metrics', {
      key: 'deal_count',
      name: 'Deal count',
      dataset_key: 'crm_pipeline',
      expression: 'count(deal_id)',
      format: 'number',
    });
    expect(metric.status, metric.text).toBe(201);
    const saved = await call('POST', '/v1/bi/queries/run', {
      dataset_key: 'crm_pipeline',
      dimensions: ['currency'],
      measures: [{ metric: 'deal_count' }],
    });
    expect(saved.status, saved.text).toBe(200);
    const created = await h.callTool(ws.mcpToken, 'create_bi_export', {
      name: 'Not allowed',
      format: 'csv',
      query_id: saved.body.query.id,
    });
    const failed = await finished(created.body.export.id);
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      row_count: null,
      asset_id: null,
      download: null,
      completed_at: null,
    });
    expect(failed.error.code).toBe('validation_failed');
    const run = await call('GET', `/v1/bi/runs/${failed.run_id}`);
    expect(run.body.run).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'validation_failed' },
    });
    // Nothing was stored for it.
    const assets = await h.db
      .selectFrom('assets')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .where('related_resource_id', '=', failed.id)
      .execute();
    expect(assets).toEqual([]);
  });

  it("fails an export whose file would pass the workspace's asset_bytes entitlement", async () => {
    const limited = await h.workspace('Limited');
    const patch = await h.admin('PATCH', `/workspaces/${limited.id}`, { entitlements: { asset_bytes: 50 } });
    expect(patch.status, patch.text).toBe(200);
    for (const deal of DEALS)
      expect((await call('POST', '/v1/deals', deal, limited.apiKey)).status).toBe(201);
    const saved = await call(
      'POST',
      '/v1/bi/queries/run',
      { dataset_key: 'crm_pipeline', dimensions: ['deal_name'] },
      limited.apiKey,
    );
    expect(saved.status, saved.text).toBe(200);
    const created = await createExport(
      { name: 'Too big', format: 'csv', query_id: saved.body.query.id },
      limited.apiKey,
    );
    const failed = await finished(created.export.id, limited.apiKey);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, asset_id: null, download: null });
    expect(failed.error.code).toBe('billing_limit_exceeded');
    expect(failed.error.message).toContain('asset_bytes');
    const assets = await h.db
      .selectFrom('assets')
      .select('id')
      .where('workspace_id', '=', limited.id)
      .execute();
    expect(assets).toEqual([]);
  });

  it('renames and archives an export through update_bi_object and archive_bi_object', async () => {
    const created = await createExport({ name: 'To rename', format: 'csv', query_id: queryId });
    await finished(created.export.id);
    const renamed = await call('PATCH', `/v1/bi/exports/${created.export.id}`, { name: 'Renamed' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.object).toMatchObject({
      id: created.export.id,
      name: 'Renamed',
      status: 'completed',
    });
    const refused = await call('PATCH', `/v1/bi/exports/${created.export.id}`, { format: 'jsonl' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field_errors.map((e: { field: string }) => e.field)).toEqual(['format']);
    const foreign = await call('PATCH', `/v1/bi/exports/${created.export.id}`, { name: 'x' }, other.apiKey);
    expect(foreign.status).toBe(404);

    const archived = await call('DELETE', `/v1/bi/exports/${created.export.id}`);
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.archived_at).not.toBeNull();
    expect((await call('GET', `/v1/bi/exports/${created.export.id}`)).status).toBe(404);
    const listed = await call('GET', '/v1/bi/exports');
    expect(listed.body.exports.map((e: { id: string }) => e.id)).not.toContain(created.export.id);
  });

  it('refreshes an export on a schedule: a new file, the old one archived', async () => {
    const schedule = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Hourly deals file',
      target: { type: 'export', id: csvExport.id },
      cadence: 'hourly',
      minute: 0,
    });
    expect(schedule.status, schedule.text).toBe(201);
    const added = await call('POST', '/v1/deals', { name: 'Zeta', amount_cents: 1, currency: 'USD' });
    expect(added.status).toBe(201);
    clock.advance(60 * MINUTE);
    const refreshed = await vi.waitFor(
      async () => {
        await h.worker!.tick();
        const found = (await call('GET', `/v1/bi/exports/${csvExport.id}`)).body.export;
        if (found.run_id === csvExport.run_id) throw new Error('not refreshed yet');
        return found;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(refreshed).toMatchObject({ status: 'completed', row_count: 4 });
    expect(refreshed.asset_id).not.toBe(csvExport.asset_id);
    const run = await call('GET', `/v1/bi/runs/${refreshed.run_id}`);
    expect(run.body.run).toMatchObject({ trigger: 'schedule', status: 'completed', row_count: 4 });
    const file = await h.request('GET', pathOf(refreshed.download.url));
    expect(file.text).toBe(`${EXPECTED_CSV}Zeta,true,USD,1,1\n`);
    const old = await h.db
      .selectFrom('assets')
      .select('status')
      .where('workspace_id', '=', ws.id)
      .where('id', '=', csvExport.asset_id)
      .executeTakeFirstOrThrow();
    expect(old.status).toBe('archived');
  });
});
