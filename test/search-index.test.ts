// Search through the trigram index (issue 15): substring semantics over each searchable column, escaping,
// short terms, cursors, rows written around the API, and the common-term path, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/core/ids.ts';
import { PROBE_CAP, SCAN_FIRST } from '../src/core/search.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Searcher');
  other = await h.workspace('Neighbour');
});
afterAll(() => h.close());

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });

async function contactNames(query: string, token = ws.apiKey): Promise<string[]> {
  const result = await get(`/v1/contacts?query=${encodeURIComponent(query)}&limit=100`, token);
  expect(result.status, result.text).toBe(200);
  return result.body.contacts.map((c: { name: string }) => c.name);
}

/** Every page of a search, following next_cursor. */
async function allPages(path: string, key: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await get(`${path}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status, page.text).toBe(200);
    expect(page.body[key].length).toBeLessThanOrEqual(limit);
    ids.push(...page.body[key].map((r: { id: string }) => r.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  return ids;
}

/** Contacts written straight into the table, as an import or a seeder would: oldest first. */
async function insertContacts(workspaceId: string, names: string[]): Promise<string[]> {
  const now = new Date().toISOString();
  const rows = names.map((name) => ({
    workspace_id: workspaceId,
    id: newId('con'),
    name,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await h.db
      .insertInto('contacts')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  return rows.map((r) => r.id);
}

describe('search through the index', () => {
  it('matches a substring of each listed column, in any case, newest first', async () => {
    await post('/v1/contacts', { name: 'Ada Lovelace', email: 'ada@analytical.example' });
    await post('/v1/contacts', { name: 'Grace Hopper', company_name: 'Cobol Compilers Ltd' });
    await post('/v1/contacts', { name: 'Katherine Johnson', notes: 'Orbital TRAJECTORY checks' });
    await post('/v1/contacts', { name: 'Phone Only', phone: '+44 20 7946 0958' });
    expect(await contactNames('LOVELACE')).toEqual(['Ada Lovelace']);
    expect(await contactNames('analytical.EX')).toEqual(['Ada Lovelace']);
    expect(await contactNames('cobol comp')).toEqual(['Grace Hopper']);
    expect(await contactNames('trajectory')).toEqual(['Katherine Johnson']);
    // phone is not a searchable column of contacts
    expect(await contactNames('7946')).toEqual([]);
    expect(await contactNames('o')).toEqual([
      'Phone Only',
      'Katherine Johnson',
      'Grace Hopper',
      'Ada Lovelace',
    ]);
  });

  it('never matches across two fields', async () => {
    await post('/v1/contacts', { name: 'Split Field', email: 'zephyr@wind.example', notes: 'quartz' });
    expect(await contactNames('Fieldzephyr')).toEqual([]);
    expect(await contactNames('field zephyr')).toEqual([]);
    expect(await contactNames('examplequartz')).toEqual([]);
    expect(await contactNames('zephyr@wind')).toEqual(['Split Field']);
  });

  it('takes % and _ literally', async () => {
    await post('/v1/contacts', { name: 'Percent', notes: 'discount 100% off' });
    await post('/v1/contacts', { name: 'Thousand', notes: 'discount 1000 off' });
    await post('/v1/contacts', { name: 'Underscore', email: 'snake_case@x.example' });
    await post('/v1/contacts', { name: 'Dashed', email: 'snakeXcase@x.example' });
    expect(await contactNames('100%')).toEqual(['Percent']);
    expect(await contactNames('100% off')).toEqual(['Percent']);
    expect(await contactNames('snake_case')).toEqual(['Underscore']);
    expect(await contactNames('%')).toEqual(['Percent']);
    expect(await contactNames('_')).toEqual(['Underscore']);
  });

  it('matches short terms by a scan, with the same semantics', async () => {
    expect(await contactNames('ov')).toEqual(['Ada Lovelace']);
    expect(await contactNames('C')).toContain('Grace Hopper');
    expect(await contactNames('a b')).toEqual([]);
  });

  it('finds rows written around the API, and follows their updates and deletes', async () => {
    const [id] = await insertContacts(ws.id, ['Imported Quokka']);
    expect(await contactNames('quokka')).toEqual(['Imported Quokka']);
    await h.db.updateTable('contacts').set({ name: 'Imported Wombat' }).where('id', '=', id!).execute();
    expect(await contactNames('quokka')).toEqual([]);
    expect(await contactNames('wombat')).toEqual(['Imported Wombat']);
    await h.db
      .updateTable('contacts')
      .set({ notes: 'moved to the numbat team' })
      .where('id', '=', id!)
      .execute();
    expect(await contactNames('numbat')).toEqual(['Imported Wombat']);
    expect(await contactNames('wombat')).toEqual(['Imported Wombat']);
    await h.db.deleteFrom('contacts').where('id', '=', id!).execute();
    expect(await contactNames('wombat')).toEqual([]);
    expect(await contactNames('numbat')).toEqual([]);
  });

  it('follows an edit through the API', async () => {
    const contact = (await post('/v1/contacts', { name: 'Noted Okapi' })).body.contact;
    const note = (
      await post('/v1/notes', { contact_id: contact.id, title: 'Kickoff', body: 'Agenda: tapirs' })
    ).body.note;
    const titles = async (query: string) =>
      (await get(`/v1/notes?query=${query}`)).body.notes.map((n: { id: string }) => n.id);
    expect(await titles('tapir')).toEqual([note.id]);
    const patched = await h.request('PATCH', `/v1/notes/${note.id}`, {
      token: ws.apiKey,
      body: { body: 'Agenda: capybaras' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(await titles('tapir')).toEqual([]);
    expect(await titles('CAPYBARA')).toEqual([note.id]);
    expect(await titles('kickoff')).toEqual([note.id]);
  });

  it('never returns another workspace rows', async () => {
    await post('/v1/contacts', { name: 'Neighbour Narwhal' }, other.apiKey);
    await insertContacts(other.id, ['Imported Narwhal']);
    expect(await contactNames('narwhal')).toEqual([]);
    expect(await contactNames('narwhal', other.apiKey)).toEqual(['Imported Narwhal', 'Neighbour Narwhal']);
  });

  it('pages through search results with cursors', async () => {
    const ids = await insertContacts(
      ws.id,
      Array.from({ length: 23 }, (_, i) => `Pager Pelican ${i}`),
    );
    await insertContacts(ws.id, ['Unrelated newer']);
    const seen = await allPages('/v1/contacts?query=pelican', 'contacts', 5);
    expect(seen).toEqual([...ids].reverse());
  });

  it('searches activities through their index', async () => {
    await post('/v1/activities', { type: 'call', summary: 'Called about the Zanzibar order' });
    await post('/v1/activities', { type: 'note', summary: 'Plain', body: 'zanzibar shipping notes' });
    const found = await get('/v1/activities?query=ZANZIBAR');
    expect(found.body.activities.map((a: { summary: string }) => a.summary)).toEqual([
      'Plain',
      'Called about the Zanzibar order',
    ]);
  });
});

describe('a term common enough to fill pages from the first scan', () => {
  it('pages newest first through more matches than the first scan reads', async () => {
    const total = Math.max(PROBE_CAP, SCAN_FIRST) + 150;
    const ids = await insertContacts(
      ws.id,
      Array.from({ length: total }, (_, i) => `Common Heron ${i}`),
    );
    const seen = await allPages('/v1/contacts?query=heron', 'contacts', 100);
    expect(seen.length).toBe(total);
    expect(seen).toEqual([...ids].reverse());
  });

  it('finds old matches behind the scanned rows when the term is common elsewhere', async () => {
    const old = await insertContacts(ws.id, ['Old Ibis 1', 'Old Ibis 2', 'Old Ibis 3']);
    await insertContacts(
      other.id,
      Array.from({ length: PROBE_CAP }, (_, i) => `Elsewhere Ibis ${i}`),
    );
    await insertContacts(
      ws.id,
      Array.from({ length: SCAN_FIRST + 10 }, (_, i) => `Filler ${i}`),
    );
    const seen = await allPages('/v1/contacts?query=ibis', 'contacts', 2);
    expect(seen).toEqual([...old].reverse());
    const nothing = await get('/v1/contacts?query=ibises');
    expect(nothing.body).toEqual({ contacts: [], request_id: nothing.body.request_id });
  });
});
