// The yardstick: a bare Fastify route doing one plain SQLite insert, with the service's SQLite settings.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const dir = process.env.BENCH_DIR!;
fs.mkdirSync(dir, { recursive: true });
const db = new SQLite(path.join(dir, 'bare.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('temp_store = memory');
db.exec(
  'create table if not exists contacts (id text primary key, name text not null, email text, created_at text not null)',
);
const insert = db.prepare('insert into contacts (id, name, email, created_at) values (?, ?, ?, ?)');
let n = 0;

const app = Fastify({ logger: false });
app.get('/ready', async () => ({ ok: true }));
app.post('/contacts', async (request, reply) => {
  const body = request.body as { name: string; email?: string };
  const id = `c${process.pid}_${n++}`;
  insert.run(id, body.name, body.email ?? null, new Date().toISOString());
  return reply.code(201).send({ contact: { id, name: body.name } });
});
const address = await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
