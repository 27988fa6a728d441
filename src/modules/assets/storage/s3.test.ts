// The S3 driver against a real S3-compatible server on loopback (s3rver).
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type TestS3 } from '../../../../test/helpers/s3-server.ts';
import { S3Storage } from './s3.ts';
import { ObjectTooLarge } from './storage.ts';

let s3: TestS3;
let storage: S3Storage;
/** Parts of 5 MiB, the least S3 takes: an 11 MiB body is three parts. */
const PART = 5 * 1024 * 1024;

beforeAll(async () => {
  s3 = await startS3();
  storage = new S3Storage(s3.settings, { partBytes: PART });
});
afterAll(async () => {
  storage.close();
  await s3.close();
});

/** bytes as a stream of unknown length, in chunks that arrive one event-loop turn apart (a request body). */
function streamed(bytes: Buffer, chunkBytes = 64 * 1024): Readable {
  return Readable.from(
    (async function* () {
      for (let at = 0; at < bytes.length; at += chunkBytes) {
        await new Promise((resolve) => setImmediate(resolve));
        yield bytes.subarray(at, at + chunkBytes);
      }
    })(),
  );
}

async function readAll(key: string) {
  const stored = await storage.read(key);
  if (!stored) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stored.stream) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks), sizeBytes: stored.sizeBytes };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The objects of the bucket with their sizes, as the server lists them (not through the driver). */
async function bucketObjects(): Promise<Record<string, number>> {
  const client = new S3Client({
    endpoint: s3.settings.endpoint,
    region: s3.settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.settings.accessKeyId!, secretAccessKey: s3.settings.secretAccessKey! },
  });
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.settings.bucket }));
  client.destroy();
  return Object.fromEntries((listed.Contents ?? []).map((o) => [o.Key!, o.Size!]));
}

describe('S3 storage', () => {
  it('stores a streamed upload of several parts byte for byte', async () => {
    const bytes = randomBytes(11 * 1024 * 1024 + 123);
    const written = await storage.write('ws_1/ast_big', streamed(bytes), bytes.length);
    expect(written).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
    const back = await readAll('ws_1/ast_big');
    expect(back?.sizeBytes).toBe(bytes.length);
    expect(back?.bytes.equals(bytes)).toBe(true);
    // The object itself holds the bytes alone: no aws-chunked framing stored with them.
    expect((await bucketObjects())['ws_1/ast_big']).toBe(bytes.length);
  });

  it('stores a small streamed body in one request, exactly', async () => {
    const bytes = randomBytes(70_000);
    const written = await storage.write('ws_1/ast_small', streamed(bytes, 1000), 100_000);
    expect(written).toEqual({ sizeBytes: 70_000, sha256: sha256(bytes) });
    expect((await readAll('ws_1/ast_small'))?.bytes.equals(bytes)).toBe(true);
    expect((await bucketObjects())['ws_1/ast_small']).toBe(70_000);
    // An empty body is an empty object.
    expect(await storage.write('ws_1/ast_empty', Readable.from([]), 10)).toMatchObject({ sizeBytes: 0 });
    expect((await readAll('ws_1/ast_empty'))?.bytes.length).toBe(0);
  });

  it('keeps the previous object and stores nothing when a write is too large', async () => {
    const before = (await readAll('ws_1/ast_small'))!.bytes;
    const failed = storage.write('ws_1/ast_small', streamed(randomBytes(200_000), 1000), 100_000);
    await expect(failed).rejects.toBeInstanceOf(ObjectTooLarge);
    expect((await readAll('ws_1/ast_small'))?.bytes.equals(before)).toBe(true);
    // Past a part already sent: the multipart upload is dropped, no object appears.
    const large = storage.write('ws_1/ast_never', streamed(randomBytes(PART + 100_000)), PART + 50_000);
    await expect(large).rejects.toBeInstanceOf(ObjectTooLarge);
    expect(await storage.read('ws_1/ast_never')).toBeNull();
    expect(Object.keys(await bucketObjects())).not.toContain('ws_1/ast_never');
  });

  it('moves, removes, and lists keys under a prefix', async () => {
    await storage.write('uploads/ws_2/ast_2', Readable.from([Buffer.from('staged')]), 10);
    expect(await storage.list('uploads')).toEqual(['uploads/ws_2/ast_2']);
    expect(await storage.move('uploads/ws_2/ast_2', 'ws_2/ast_2')).toBe(true);
    expect(await storage.move('uploads/ws_2/ast_2', 'ws_2/ast_2')).toBe(false);
    expect((await readAll('ws_2/ast_2'))?.bytes.toString()).toBe('staged');
    expect(await storage.list('uploads')).toEqual([]);
    expect((await storage.list('ws_1')).sort()).toEqual(['ws_1/ast_big', 'ws_1/ast_empty', 'ws_1/ast_small']);
    await storage.remove('ws_2/ast_2');
    await storage.remove('ws_2/ast_2');
    expect(await storage.read('ws_2/ast_2')).toBeNull();
    expect(Object.keys(await bucketObjects())).not.toContain('ws_2/ast_2');
    expect(await storage.list('nothing-here')).toEqual([]);
  });

  it('refuses keys that are not its own shape', async () => {
    await expect(storage.write('../escape', Readable.from([]), 10)).rejects.toThrow(/invalid storage key/);
    await expect(storage.read('a//b')).rejects.toThrow(/invalid storage key/);
  });

  it('checks its bucket at start, and says what is wrong without the secret', async () => {
    await expect(storage.verify()).resolves.toBeUndefined();
    const missing = new S3Storage({ ...s3.settings, bucket: 'no-such-bucket' });
    const error = await missing.verify().then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    missing.close();
    expect(error?.message).toContain('the bucket "no-such-bucket"');
    expect(error?.message).toContain('HTTP 404, no such bucket');
    expect(error?.message).toContain(s3.settings.endpoint);
    expect(error?.message).not.toContain(s3.settings.secretAccessKey);
    // The settings, secret included, are not enumerable on the driver: a logged driver shows none.
    expect(JSON.stringify(storage)).not.toContain(s3.settings.secretAccessKey);
  });
});
