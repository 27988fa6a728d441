// An S3-compatible server on loopback (s3rver, files in a temp directory) with one bucket and a key pair of
// its own, for the S3 storage driver and the services that use it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/deployment-config.ts';

// s3rver checks signatures against its registered key pairs; its types do not cover the account model.
const { DUMMY_ACCOUNT } = createRequire(import.meta.url)('s3rver/lib/models/account.js') as {
  DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void; revokeAccessKey(id: string): void };
};

export interface TestS3 {
  settings: S3Settings;
  /** The WOS_* variables of a node that stores its files in this bucket. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-s3-'));
  const bucket = 'wos-files';
  const accessKeyId = `WOSTEST${randomBytes(6).toString('hex').toUpperCase()}`;
  // Distinct enough that finding it in a log line can only mean the secret leaked.
  const secretAccessKey = `s3-secret-${randomBytes(18).toString('hex')}`;
  DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    settings: {
      endpoint,
      region: 'us-east-1',
      bucket,
      accessKeyId,
      secretAccessKey,
      forcePathStyle: true,
    },
    env: {
      WOS_ASSET_STORAGE: 's3',
      WOS_S3_ENDPOINT: endpoint,
      WOS_S3_REGION: 'us-east-1',
      WOS_S3_BUCKET: bucket,
      WOS_S3_ACCESS_KEY_ID: accessKeyId,
      WOS_S3_SECRET_ACCESS_KEY: secretAccessKey,
      WOS_S3_FORCE_PATH_STYLE: 'true',
    },
    close: async () => {
      await server.close();
      DUMMY_ACCOUNT.revokeAccessKey(accessKeyId);
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
