// Signed, expiring asset content URLs. The HMAC key is generated once per installation and kept in the
// installation table, so every server process of one installation signs and verifies alike.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

const KEY_NAME = 'asset_url_signing_key';
export type UrlAction = 'upload' | 'download';

export async function signingKey(db: Kysely<DB>): Promise<Buffer> {
  const read = () =>
    db.selectFrom('installation').select('value').where('key', '=', KEY_NAME).executeTakeFirst();
  let row = await read();
  if (!row) {
    await db
      .insertInto('installation')
      .values({ key: KEY_NAME, value: randomBytes(32).toString('base64') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    row = await read();
  }
  return Buffer.from(row!.value, 'base64');
}

/** The signature covers the action (an upload URL cannot download), the workspace, the asset and the expiry. */
export function sign(
  key: Buffer,
  action: UrlAction,
  workspaceId: string,
  assetId: string,
  expires: number,
): string {
  return createHmac('sha256', key)
    .update(`wos-asset-url:v1\n${action}\n${workspaceId}\n${assetId}\n${expires}`)
    .digest('base64url');
}

export function signatureMatches(
  key: Buffer,
  action: UrlAction,
  workspaceId: string,
  assetId: string,
  expires: number,
  signature: string,
): boolean {
  const expected = Buffer.from(sign(key, action, workspaceId, assetId, expires));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** PUT or GET {publicUrl}/v1/assets/{id}/content?expires=<unix seconds>&signature=<HMAC>. */
export function signedUrl(
  publicUrl: string,
  key: Buffer,
  action: UrlAction,
  asset: { workspace_id: string; id: string },
  expiresAt: Date,
) {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const signature = sign(key, action, asset.workspace_id, asset.id, expires);
  return {
    url: `${publicUrl}/v1/assets/${asset.id}/content?expires=${expires}&signature=${signature}`,
    expires_at: new Date(expires * 1000).toISOString(),
  };
}
