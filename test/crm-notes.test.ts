// Notes: subjects, listing, edits with their audit, archiving and the operator's restore.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let contactId: string;
let companyId: string;
let dealId: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  companyId = (await post('/v1/companies', { name: 'Noted Co', notes: 'single blob' })).body.company.id;
  contactId = (await post('/v1/contacts', { name: 'Noted Person', company_id: companyId })).body.contact.id;
  dealId = (await post('/v1/deals', { name: 'Noted deal', company_id: companyId, notes: 'deal blob' })).body
    .deal.id;
});
afterAll(() => h.close());

function post(url: string, body: unknown) {
  return h.request('POST', url, { token: ws.apiKey, body });
}
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const noteRow = (id: string) =>
  h.db.selectFrom('notes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const noteCount = async () =>
  Number(
    (
      await h.db
        .selectFrom('notes')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', ws.id)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('notes', () => {
  it('need a subject that exists, and record their author', async () => {
    const before = await noteCount();
    const none = await post('/v1/notes', { body: 'About nothing' });
    expect(none.status).toBe(400);
    expect(none.body.error.field_errors.map((e: any) => e.field)).toEqual([
      'contact_id',
      'company_id',
      'deal_id',
    ]);
    for (const field of ['contact_id', 'company_id', 'deal_id']) {
      const missing = await post('/v1/notes', { body: 'x', [field]: 'x_missing' });
      expect(missing.status, field).toBe(404);
    }
    const noBody = await post('/v1/notes', { contact_id: contactId });
    expect(noBody.body.error.field_errors[0].field).toBe('body');
    expect(await noteCount()).toBe(before);

    const note = await post('/v1/notes', {
      title: 'Kickoff',
      body: 'Discussed the rollout plan.',
      contact_id: contactId,
      deal_id: dealId,
      custom_fields: { sentiment: 'positive' },
      metadata: { source: 'email', thread: 42 },
    });
    expect(note.status).toBe(201);
    expect(note.body.note).toMatchObject({
      title: 'Kickoff',
      contact_id: contactId,
      company_id: null,
      deal_id: dealId,
      custom_fields: { sentiment: 'positive' },
      metadata: { source: 'email', thread: 42 },
      author: { type: 'api_key', name: 'api_key for tests' },
      archived_at: null,
    });
    expect(await noteRow(note.body.note.id)).toMatchObject({
      workspace_id: ws.id,
      body: 'Discussed the rollout plan.',
    });
    const viaMcp = await h.callTool(ws.mcpToken, 'create_note', {
      body: 'From an agent',
      company_id: companyId,
    });
    expect(viaMcp.body.note.author.type).toBe('mcp_token');
  });

  it('list newest first, filter by subject and text, and an empty list is a valid answer', async () => {
    const other = await h.workspace('Notes list');
    const empty = await h.request('GET', '/v1/notes', { token: other.apiKey });
    expect(empty.status).toBe(200);
    expect(empty.body.notes).toEqual([]);
    expect(empty.body.next_cursor).toBeUndefined();

    const contact = (await h.request('POST', '/v1/contacts', { token: other.apiKey, body: { name: 'C' } }))
      .body.contact;
    const company = (await h.request('POST', '/v1/companies', { token: other.apiKey, body: { name: 'Co' } }))
      .body.company;
    const make = (body: unknown) => h.request('POST', '/v1/notes', { token: other.apiKey, body });
    await make({ body: 'First call went well', contact_id: contact.id });
    await make({
      title: 'Pricing',
      body: 'Asked for a discount',
      contact_id: contact.id,
      company_id: company.id,
    });
    await make({ body: 'Company offsite', company_id: company.id });
    const list = async (qs: string) =>
      (await h.request('GET', `/v1/notes?${qs}`, { token: other.apiKey })).body.notes.map((n: any) => n.body);
    expect(await list('')).toEqual(['Company offsite', 'Asked for a discount', 'First call went well']);
    expect(await list(`contact_id=${contact.id}`)).toEqual(['Asked for a discount', 'First call went well']);
    expect(await list(`company_id=${company.id}&contact_id=${contact.id}`)).toEqual(['Asked for a discount']);
    expect(await list('query=PRICING')).toEqual(['Asked for a discount']);
    expect(await list('deal_id=deal_none')).toEqual([]);
    const page = await h.request('GET', '/v1/notes?limit=2', { token: other.apiKey });
    expect(page.body.notes).toHaveLength(2);
    const rest = await h.callTool(other.mcpToken, 'list_notes', { limit: 2, cursor: page.body.next_cursor });
    expect(rest.body.notes.map((n: any) => n.body)).toEqual(['First call went well']);
  });

  it('update_note must change a field, records the changed names, and keeps a subject', async () => {
    const note = (
      await post('/v1/notes', { title: 'Draft', body: 'v1', contact_id: contactId, metadata: { a: 1 } })
    ).body.note;
    const noFields = await patch(`/v1/notes/${note.id}`, {});
    expect(noFields.status).toBe(400);
    const sameValues = await patch(`/v1/notes/${note.id}`, {
      title: 'Draft',
      body: 'v1',
      metadata: { a: 1 },
    });
    expect(sameValues.status).toBe(400);
    expect(sameValues.body.error.code).toBe('validation_failed');

    h.clock.advance(1000);
    const edited = await patch(`/v1/notes/${note.id}`, {
      body: 'v2',
      title: 'Draft',
      company_id: companyId,
      metadata: { a: null, b: 'x' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.note).toMatchObject({
      body: 'v2',
      company_id: companyId,
      metadata: { b: 'x' },
      updated_at: h.clock.now().toISOString(),
    });
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', edited.body.request_id)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ target_type: 'note', target_id: note.id, action: 'update' });
    expect(JSON.parse(audit.changed_fields)).toEqual(['body', 'company_id', 'metadata']);
    expect(await noteRow(note.id)).toMatchObject({ body: 'v2', company_id: companyId });

    const unlinkAll = await patch(`/v1/notes/${note.id}`, { contact_id: null, company_id: null });
    expect(unlinkAll.status).toBe(400);
    const unlinkOne = await h.callTool(ws.mcpToken, 'update_note', { note_id: note.id, contact_id: null });
    expect(unlinkOne.body.note).toMatchObject({ contact_id: null, company_id: companyId });
    const badSubject = await patch(`/v1/notes/${note.id}`, { deal_id: 'deal_missing' });
    expect(badSubject.status).toBe(404);
    expect((await patch('/v1/notes/note_missing', { body: 'x' })).status).toBe(404);
  });

  it('archive hides the note from every read, keeps it and its history, and the operator restores it', async () => {
    const note = (await post('/v1/notes', { body: 'To be archived', deal_id: dealId })).body.note;
    await patch(`/v1/notes/${note.id}`, { body: 'To be archived, edited' });
    const archived = await h.request('DELETE', `/v1/notes/${note.id}`, { token: ws.apiKey });
    expect(archived.status).toBe(200);
    expect(archived.body.note.archived_at).toBe(h.clock.now().toISOString());
    expect(await noteRow(note.id)).toMatchObject({
      body: 'To be archived, edited',
      archived_at: h.clock.now().toISOString(),
    });

    expect((await get(`/v1/notes/${note.id}`)).status).toBe(404);
    expect((await get(`/v1/notes?deal_id=${dealId}`)).body.notes.map((n: any) => n.id)).not.toContain(
      note.id,
    );
    expect((await get('/v1/notes?query=archived')).body.notes).toEqual([]);
    expect((await patch(`/v1/notes/${note.id}`, { body: 'x' })).status).toBe(404);
    const again = await h.callTool(ws.mcpToken, 'archive_note', { note_id: note.id });
    expect(again.body.note.archived_at).toBe(archived.body.note.archived_at);

    const history = await get(`/v1/history?target_type=note&target_id=${note.id}`);
    expect(history.body.entries.map((e: any) => e.action)).toEqual([
      'archive',
      'archive',
      'update',
      'create',
    ]);

    const stranger = await h.workspace('Stranger');
    expect((await h.admin('POST', `/workspaces/${stranger.id}/notes/${note.id}/restore`)).status).toBe(404);
    expect((await h.admin('POST', `/workspaces/${ws.id}/notes/note_missing/restore`)).status).toBe(404);
    expect(
      (
        await h.request('POST', `/admin/v1/workspaces/${ws.id}/notes/${note.id}/restore`, {
          token: ws.apiKey,
        })
      ).status,
    ).not.toBe(200);

    const restored = await h.admin('POST', `/workspaces/${ws.id}/notes/${note.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.note).toMatchObject({
      id: note.id,
      archived_at: null,
      body: 'To be archived, edited',
    });
    expect((await get(`/v1/notes/${note.id}`)).body.note.id).toBe(note.id);
    const after = await get(`/v1/history?target_type=note&target_id=${note.id}`);
    expect(after.body.entries[0]).toMatchObject({
      action: 'restore',
      tool: 'admin.restore_note',
      surface: 'admin',
      actor: { type: 'operator', credential_id: null },
      changed_fields: ['archived_at'],
    });
  });

  it('leave the free-text notes field of companies and deals a single overwritten value', async () => {
    await post('/v1/notes', { body: 'Separate note', company_id: companyId, deal_id: dealId });
    const company = await h.db
      .selectFrom('companies')
      .select('notes')
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow();
    expect(company.notes).toBe('single blob');
    await patch(`/v1/deals/${dealId}`, { notes: 'replaced blob' });
    expect((await get(`/v1/deals/${dealId}`)).body.deal.notes).toBe('replaced blob');
  });
});
