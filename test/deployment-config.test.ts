// The settings of a deployment with several nodes (WOS_ASSET_STORAGE, WOS_S3_*, WOS_TRUST_PROXY) and the
// warning a PostgreSQL node on local disk logs at start.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { Harness, usingPostgres } from './helpers/harness.ts';

const S3 = {
  WOS_ASSET_STORAGE: 's3',
  WOS_S3_ENDPOINT: 'http://127.0.0.1:9000',
  WOS_S3_BUCKET: 'files',
  WOS_S3_ACCESS_KEY_ID: 'key',
  WOS_S3_SECRET_ACCESS_KEY: 'secret',
};

describe('WOS_ASSET_STORAGE and WOS_S3_*', () => {
  it('keeps files on local disk unless told otherwise, and remembers whether that was chosen', () => {
    expect(loadConfig({})).toMatchObject({
      assetStorage: 'local',
      assetStorageExplicit: false,
      s3: undefined,
    });
    expect(loadConfig({ WOS_ASSET_STORAGE: 'local' })).toMatchObject({
      assetStorage: 'local',
      assetStorageExplicit: true,
    });
  });

  it('reads the S3 settings, with the region and path style defaulted', () => {
    expect(loadConfig(S3).s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      bucket: 'files',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      forcePathStyle: false,
    });
    const aws = loadConfig({
      WOS_ASSET_STORAGE: 's3',
      WOS_S3_BUCKET: 'files',
      WOS_S3_REGION: 'eu-west-3',
      WOS_S3_FORCE_PATH_STYLE: 'true',
    }).s3;
    expect(aws).toMatchObject({ endpoint: undefined, region: 'eu-west-3', forcePathStyle: true });
    expect(aws?.accessKeyId).toBeUndefined();
  });

  it('refuses settings that cannot work, naming the variable', () => {
    expect(() => loadConfig({ WOS_ASSET_STORAGE: 'disk' })).toThrow('WOS_ASSET_STORAGE must be local or s3');
    expect(() => loadConfig({ ...S3, WOS_S3_BUCKET: '' })).toThrow(
      'WOS_ASSET_STORAGE=s3 needs WOS_S3_BUCKET',
    );
    expect(() => loadConfig({ ...S3, WOS_S3_SECRET_ACCESS_KEY: '' })).toThrow(/go together/);
    expect(() => loadConfig({ ...S3, WOS_S3_ENDPOINT: 'minio:9000' })).toThrow(/WOS_S3_ENDPOINT must be/);
    expect(() => loadConfig({ ...S3, WOS_MAX_UPLOAD_BYTES: String(6 * 1024 ** 3) })).toThrow(
      /WOS_MAX_UPLOAD_BYTES may be at most/,
    );
  });
});

describe('WOS_TRUST_PROXY', () => {
  it('takes a hop count or addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ WOS_TRUST_PROXY: '0' }).trustProxy).toBeUndefined();
    expect(loadConfig({ WOS_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ WOS_TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,::1,fd00::/8,loopback' }).trustProxy).toEqual(
      ['10.0.0.0/8', '192.0.2.7', '::1', 'fd00::/8', 'loopback'],
    );
  });

  it('refuses trusting every sender and what is not an address', () => {
    expect(() => loadConfig({ WOS_TRUST_PROXY: 'true' })).toThrow(/must say which proxies to trust/);
    for (const wrong of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/2', '::1/129'])
      expect(() => loadConfig({ WOS_TRUST_PROXY: `192.0.2.1,${wrong}` })).toThrow(
        `WOS_TRUST_PROXY: "${wrong}" is not an IP address or CIDR range`,
      );
  });
});

/** The warnings a node logs while it starts. */
async function startWarnings(env: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as { level: number; msg: string };
      if (line.level === 40) lines.push(line.msg);
      done();
    },
  });
  const h = await Harness.start({ env, logger: pino({ level: 'warn' }, sink) });
  await h.close();
  return lines;
}

describe(`files per node (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('warns a PostgreSQL node on local disk by default, and no SQLite node', async () => {
    const warnings = (await startWarnings({})).filter((w) => w.includes('WOS_ASSET_STORAGE'));
    if (usingPostgres) {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^asset uploads and BI export files are stored on this node's disk/);
      expect(warnings[0]).toContain('a file written on one node is missing on the others');
    } else {
      expect(warnings).toEqual([]);
    }
  });

  it('does not warn when WOS_ASSET_STORAGE=local was chosen', async () => {
    const warnings = await startWarnings({ WOS_ASSET_STORAGE: 'local' });
    expect(warnings.filter((w) => w.includes('WOS_ASSET_STORAGE'))).toEqual([]);
  });
});
