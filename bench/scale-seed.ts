// The rows of `npm run bench:scale`, written directly (as an import would): contacts, tasks and activities,
// `rows` of each, 80% in the first workspace and 5% in each of four others, interleaved in time order
// over two years, plus `auditRows` audit events about them. Text is drawn from fixed vocabularies with a
// seeded generator, so every run (and both databases) stores the same rows, and the search terms of the
// benchmark match a known share of them.
import { monotonicFactory } from 'ulid';
import { type BulkWriter, pgClient, pgWriter, sqliteWriter, type Table } from './analytics-seed.ts';

const FIRST = `Ada Grace Alan Katherine Linus Margaret Edsger Barbara Donald Frances John Radia Ken Sophie Tim
  Hedy Dennis Shafi Niklaus Anita Leslie Jean Guido Yukihiro Bjarne Lynn Whitfield Adele Marissa Ivan Maria
  Omar Priya Wei Lucia Kwame Ingrid Mateo Aisha Sven`.split(/\s+/);
const LAST = `Lovelace Hopper Turing Johnson Torvalds Hamilton Dijkstra Liskov Knuth Allen McCarthy Perlman
  Thompson Wilson Berners Lamarr Ritchie Goldwasser Wirth Borg Lamport Sammet Rossum Matsumoto Stroustrup
  Conway Diffie Goldberg Mayer Sutherland Garcia Okafor Patel Chen Rossi Mensah Larsen Lopez Khan
  Andersson`.split(/\s+/);
const COMPANIES = `Acme Initech Globex Umbrella Hooli Vandelay Stark Wayne Wonka Cyberdyne Soylent Tyrell
  Massive Dynamic Aperture Gringotts Monarch Oceanic Prestige Sterling Cooper Dunder Mifflin Pied Piper Nakatomi
  Oscorp Virtucon Zorg Blue Sun`
  .split(/\s+/)
  .map((w) => `${w} ${['Ltd', 'Inc', 'GmbH', 'SA', 'Group'][w.length % 5]}`);
const TOPICS = `renewal pricing onboarding invoice migration contract integration outage training roadmap
  upgrade security review workshop expansion`.split(/\s+/);
const SENTENCES = [
  'Prefers email over phone calls.',
  'Met at the spring conference in Lisbon.',
  'Asked for a quote on the enterprise plan.',
  'Decision maker for the procurement team.',
  'Follow up after the quarterly business review.',
  'Interested in the analytics add-on.',
  'Budget approved for the next fiscal year.',
  'Wants a demo for the operations team.',
  'Signed the pilot agreement last month.',
  'Needs the security questionnaire answered.',
  'Referred by an existing customer.',
  'Travels often; best reached in the morning.',
];
const ACTIVITY_TYPES = ['note', 'call', 'email', 'meeting', 'agent_action'] as const;
const TASK_STATUSES = ['open', 'open', 'open', 'completed', 'canceled'] as const;

/** The search terms and the share of rows each should match. */
export const TERMS = {
  /** Contacts: a last name (1 in 40 contacts); activities: a topic (1 in 15). */
  contactsCommon: 'garcia',
  activitiesCommon: 'renewal',
  /** One row in RARE_EVERY of each table carries this word. */
  rare: 'quixotic',
  none: 'zyxwvut',
};
const RARE_EVERY = 50_000;

export const CONTACTS: Table = {
  name: 'contacts',
  columns: [
    'workspace_id',
    'id',
    'name',
    'email',
    'phone',
    'company_name',
    'notes',
    'created_at',
    'updated_at',
  ],
};
export const TASKS: Table = {
  name: 'tasks',
  columns: ['workspace_id', 'id', 'title', 'description', 'status', 'due_at', 'created_at', 'updated_at'],
};
export const ACTIVITIES: Table = {
  name: 'activities',
  columns: [
    'workspace_id',
    'id',
    'type',
    'summary',
    'body',
    'related_resource_type',
    'related_resource_id',
    'occurred_at',
    'actor_type',
    'created_at',
    'updated_at',
  ],
};
export const AUDIT: Table = {
  name: 'audit_events',
  columns: [
    'workspace_id',
    'id',
    'request_id',
    'occurred_at',
    'actor_type',
    'actor_name',
    'surface',
    'tool',
    'action',
    'target_type',
    'target_id',
    'status',
    'changed_fields',
  ],
};

/** mulberry32: a small seeded generator, so both databases get the same rows. */
function generator(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Seeded {
  /** Per table, the IDs of the first workspace in time order (oldest first). */
  contactIds: string[];
  /** A contact of the first workspace with audit events about it (for the history request). */
  historyTarget: string;
}

/**
 * Writes the rows. `workspaces[0]` gets 80% of each table; the rest share 20%. Rows are created in time
 * order over the two years before now, so IDs (ULIDs of their creation time) and rowids agree.
 */
export async function seedScale(
  target: { file: string; url?: string; schema?: string },
  workspaces: string[],
  rows: number,
  auditRows: number,
): Promise<Seeded> {
  if (target.url) {
    // A bulk load: the GIN indexes are built once afterwards (createSearchIndexes, as migration 0012 does)
    // instead of being merged row by row. SQLite keeps its triggers: the seed goes through them.
    const client = pgClient(target.url, target.schema!);
    await client.connect();
    await client.query('drop index contacts_search, activities_search');
    await client.end();
  }
  const writer: BulkWriter = target.url
    ? await pgWriter(target.url, target.schema!, 2_000)
    : sqliteWriter(target.file, false, 200);
  const random = generator(15);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const ulid = monotonicFactory(random);
  const start = Date.now() - 2 * 365 * 86_400_000;
  const step = (2 * 365 * 86_400_000) / rows;
  const owner = (i: number) =>
    i % 5 === 4 ? workspaces[1 + (((i / 5) % (workspaces.length - 1)) | 0)]! : workspaces[0]!;
  const mainContacts: string[] = [];
  const everyContact: [string, string][] = [];
  for (let i = 0; i < rows; i++) {
    const at = start + i * step;
    const iso = new Date(at).toISOString();
    const workspace = owner(i);
    const rare = i % RARE_EVERY === RARE_EVERY / 2 ? ` A ${TERMS.rare} request.` : '';
    const first = pick(FIRST);
    const last = pick(LAST);
    const company = pick(COMPANIES);
    const contactId = `con_${ulid(at)}`;
    const domain = `${company.split(' ')[0]!.toLowerCase()}.example`;
    await writer.add(CONTACTS, [
      workspace,
      contactId,
      `${first} ${last}`,
      `${first}.${last}@${domain}`.toLowerCase(),
      `+1 555 ${String(Math.floor(random() * 1e7)).padStart(7, '0')}`,
      company,
      `${pick(SENTENCES)} ${pick(SENTENCES)}${rare}`,
      iso,
      iso,
    ]);
    if (workspace === workspaces[0]) mainContacts.push(contactId);
    everyContact.push([workspace, contactId]);
    const topic = pick(TOPICS);
    const status = pick(TASK_STATUSES);
    await writer.add(TASKS, [
      workspace,
      `tsk_${ulid(at)}`,
      `Follow up with ${first} ${last} on ${topic}`,
      `${pick(SENTENCES)}${rare}`,
      status,
      new Date(at + 7 * 86_400_000).toISOString(),
      iso,
      iso,
    ]);
    await writer.add(ACTIVITIES, [
      workspace,
      `act_${ulid(at)}`,
      pick(ACTIVITY_TYPES),
      `${pick(['Call', 'Meeting', 'Email', 'Note'])} with ${first} ${last} about ${topic}`,
      `${pick(SENTENCES)} ${pick(SENTENCES)}${rare}`,
      'contact',
      contactId,
      iso,
      'api_key',
      iso,
      iso,
    ]);
  }
  // Audit events: one per record created, the rest edits of random contacts; the first contact of the main
  // workspace gets a history of its own.
  const historyTarget = mainContacts[0]!;
  const auditUlid = monotonicFactory(random);
  for (let i = 0; i < auditRows; i++) {
    const at = start + (i / auditRows) * 2 * 365 * 86_400_000;
    const [workspace, target] = i % 1000 === 0 ? [workspaces[0]!, historyTarget] : pick(everyContact);
    await writer.add(AUDIT, [
      workspace,
      `aud_${auditUlid(at)}`,
      `req_${auditUlid(at)}`,
      new Date(at).toISOString(),
      'api_key',
      'bench',
      'rest',
      'update_contact',
      'update',
      'contact',
      target,
      'success',
      JSON.stringify(['notes']),
    ]);
  }
  await writer.finish();
  if (target.url) {
    // As autovacuum would after a bulk load: the planner's estimates of the searches need statistics.
    const client = pgClient(target.url, target.schema!);
    await client.connect();
    await client.query('analyze contacts, tasks, activities, audit_events');
    await client.end();
  }
  return { contactIds: mainContacts, historyTarget };
}
