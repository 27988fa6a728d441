// The PostgreSQL yardstick: a bare Fastify route doing the audited SQL of a create with no service around it:
// one transaction (begin, the idempotency row with the record's ID, the record, its audit, outbox and call
// events, commit: 7 round trips, one commit) on a pool of WOS_DATABASE_POOL_SIZE connections (default 10),
// into the tables of a migrated wos schema (same indexes and triggers as the service's writes).
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const schema = process.env.BENCH_SCHEMA!;
const workspaceId = process.env.BENCH_WORKSPACE_ID!;
const pool = new pg.Pool({
  connectionString: process.env.BENCH_DATABASE_URL,
  max: Number(process.env.WOS_DATABASE_POOL_SIZE ?? 10),
  options: `-c search_path=${schema}`,
});
let n = 0;
const id = (prefix: string) => `${prefix}_${process.pid}${randomBytes(6).toString('hex')}${n++}`;

const app = Fastify({ logger: false });
app.get('/ready', async () => ({ ok: true }));
app.post('/contacts', async (request, reply) => {
  const body = request.body as { name: string; email?: string; idempotency_key: string };
  const now = new Date().toISOString();
  const contactId = id('con');
  const requestId = id('req');
  const contact = {
    id: contactId,
    name: body.name,
    email: body.email ?? null,
    phone: null,
    company_id: null,
    company_name: null,
    notes: null,
    created_at: now,
    updated_at: now,
  };
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into idempotency_keys (workspace_id, resource_type, key, operation, fingerprint, resource_id, created_at)
       values ($1, 'contact', $2, 'create_contact', $3, $4, $5)`,
      [workspaceId, body.idempotency_key, 'f'.repeat(64), contactId, now],
    );
    await client.query(
      `insert into contacts (workspace_id, id, name, email, phone, company_id, company_name, notes, created_at, updated_at)
       values ($1, $2, $3, $4, null, null, null, null, $5, $5)`,
      [workspaceId, contactId, body.name, contact.email, now],
    );
    await client.query(
      `insert into audit_events (workspace_id, id, request_id, occurred_at, actor_type, actor_credential_id,
         actor_name, surface, tool, action, target_type, target_id, status, changed_fields, on_behalf_of, caused_by)
       values ($1, $2, $3, $4, 'api_key', 'key_bench', 'bench', 'rest', 'create_contact', 'create', 'contact', $5,
         'succeeded', '["name","email"]', null, null)`,
      [workspaceId, id('aud'), requestId, now, contactId],
    );
    await client.query(
      `insert into outbox_events (workspace_id, id, request_id, name, occurred_at, target_type, target_id, payload,
         published_at)
       values ($1, $2, $3, 'contact.created', $4, 'contact', $5, $6, null)`,
      [workspaceId, id('evt'), requestId, now, contactId, JSON.stringify(contact)],
    );
    await client.query(
      `insert into call_events (workspace_id, id, request_id, occurred_at, kind, route, method, credential_id,
         credential_path, http_status, error_code, duration_ms, units, billed_units, caused_by)
       values ($1, $2, $3, $4, 'api_request', 'POST /v1/contacts', 'POST', 'key_bench', 'rest/api_key', 201, null,
         1, 1, 1, null)`,
      [workspaceId, id('call'), requestId, now],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
  return reply.code(201).send({ contact, request_id: requestId });
});
const address = await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
