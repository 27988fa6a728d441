// Signing secrets (whsec_...) must be readable to sign, so they are stored encrypted (AES-256-GCM) with a
// key generated once per installation and kept in the installation table: a dump of the workspace tables,
// a log line or an API response never shows one. They are returned only on create and rotation.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { DB } from '../../db/tables.ts';

/** A value of the installation table, generated and stored on first use (concurrent first uses agree). */
export async function installationValue(
  db: Kysely<DB>,
  key: string,
  generate: () => string,
): Promise<string> {
  const read = () => db.selectFrom('installation').select('value').where('key', '=', key).executeTakeFirst();
  const existing = await read();
  if (existing) return existing.value;
  await db
    .insertInto('installation')
    .values({ key, value: generate() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await read())!.value;
}

async function encryptionKey(db: Kysely<DB>): Promise<Buffer> {
  const value = await installationValue(db, 'secret_encryption_key', () =>
    randomBytes(32).toString('base64'),
  );
  return Buffer.from(value, 'base64');
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function sealSecret(db: Kysely<DB>, secret: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await encryptionKey(db), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

export async function openSecret(db: Kysely<DB>, sealed: string): Promise<string> {
  const raw = Buffer.from(sealed.slice(3), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', await encryptionKey(db), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * Standard Webhooks headers: webhook-id, webhook-timestamp and webhook-signature "v1,<base64 HMAC-SHA256
 * of id.timestamp.body>", one signature per secret (two during a rotation's overlap), space-separated.
 */
export function signedHeaders(
  secrets: string[],
  messageId: string,
  timestamp: Date,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(messageId, timestamp, body))
      .join(' '),
  };
}
