// Closing the service settles, whatever ran before: after a heavy read (SQLite: a heavy-read worker process
// that idles unref'd), the close used to wait for an exit event the emptied event loop never delivered, so a
// process ending with that close exited with code 13 (the benches did). The close runs in a process of its
// own (test/fixtures/close-after-heavy-read.ts): inside Vitest's worker the event loop never empties.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from './helpers/harness.ts';

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
beforeAll(async () => {
  database = await isolatedDatabase();
});
afterAll(() => database.drop());

describe('closing the service', () => {
  it.each(['off', 'on'])('settles after a heavy read, so the process exits 0 (worker %s)', async (worker) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/close-after-heavy-read.ts'], {
      env: { ...process.env, ...database.env, WOS_LOG_LEVEL: 'silent', WOS_WORKER: worker },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect({ code, closed: output.includes('closed') }, output).toEqual({ code: 0, closed: true });
  });
});
