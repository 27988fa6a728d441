import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalDiskStorage } from './local-disk.ts';
import { ObjectTooLarge } from './storage.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-storage-'));
const storage = new LocalDiskStorage(root);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function readAll(key: string) {
  const stored = await storage.read(key);
  if (!stored) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stored.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('local disk storage', () => {
  it('writes, reports size and digest, and reads back', async () => {
    const written = await storage.write(
      'ws_1/ast_1',
      Readable.from([Buffer.from('abc'), Buffer.from('def')]),
      10,
    );
    expect(written).toEqual({
      sizeBytes: 6,
      sha256: 'bef57ec7f53a6d40beb640a780a639c83bc29ac8a9816f1fc6c5c6dcd93c4721',
    });
    expect((await readAll('ws_1/ast_1'))?.toString()).toBe('abcdef');
    expect(await storage.read('ws_1/missing')).toBeNull();
  });

  it('keeps the previous object and no partial file when a write is too large', async () => {
    const failed = storage.write('ws_1/ast_1', Readable.from([Buffer.alloc(8), Buffer.alloc(8)]), 10);
    await expect(failed).rejects.toBeInstanceOf(ObjectTooLarge);
    expect((await readAll('ws_1/ast_1'))?.toString()).toBe('abcdef');
    expect(fs.readdirSync(path.join(root, '.tmp'))).toEqual([]);
  });

  it('moves atomically, removes, and lists keys under a prefix', async () => {
    await storage.write('uploads/ws_2/ast_2', Readable.from([Buffer.from('staged')]), 10);
    expect(await storage.list('uploads')).toEqual(['uploads/ws_2/ast_2']);
    expect(await storage.move('uploads/ws_2/ast_2', 'ws_2/ast_2')).toBe(true);
    expect(await storage.move('uploads/ws_2/ast_2', 'ws_2/ast_2')).toBe(false);
    expect((await readAll('ws_2/ast_2'))?.toString()).toBe('staged');
    expect(await storage.list('uploads')).toEqual([]);
    await storage.remove('ws_2/ast_2');
    await storage.remove('ws_2/ast_2');
    expect(await storage.read('ws_2/ast_2')).toBeNull();
    expect(await storage.list('nothing-here')).toEqual([]);
  });

  it('removes partial files older than a time, or all of them', async () => {
    const tmp = path.join(root, '.tmp');
    fs.writeFileSync(path.join(tmp, 'old.part'), 'x');
    fs.writeFileSync(path.join(tmp, 'new.part'), 'x');
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(path.join(tmp, 'old.part'), old, old);
    expect(await storage.removePartials(new Date(Date.now() - 60_000))).toBe(1);
    expect(fs.readdirSync(tmp)).toEqual(['new.part']);
    expect(await storage.removePartials()).toBe(1);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('refuses keys that could leave its root', async () => {
    await expect(storage.write('../escape', Readable.from([]), 10)).rejects.toThrow(/invalid storage key/);
  });
});
