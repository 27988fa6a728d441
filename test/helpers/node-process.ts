// `wos serve` as an operator runs it: a real process of its own, its output collected, waited on by text.
import { type ChildProcess, spawn } from 'node:child_process';

export interface NodeProcess {
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects when the process exits first. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<RegExpMatchArray | string>;
  /** The exit code (null after a signal). */
  exited: Promise<number | null>;
}

/** Starts `node bin/wos.js <args>` with the test's environment plus `env`. */
export function startNode(env: Record<string, string>, args: string[] = ['serve']): NodeProcess {
  const child = spawn(process.execPath, ['bin/wos.js', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const find = (pattern: string | RegExp) =>
    typeof pattern === 'string'
      ? output.includes(pattern)
        ? pattern
        : undefined
      : (output.match(pattern) ?? undefined);
  const waitFor = (pattern: string | RegExp, timeoutMs = 240_000) =>
    new Promise<RegExpMatchArray | string>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        const found = find(pattern);
        if (found !== undefined) {
          clearInterval(poll);
          resolve(found);
        } else if (Date.now() - started > timeoutMs || child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error(`"${pattern}" never appeared:\n${output}`));
        }
      }, 50);
    });
  return { child, output: () => output, waitFor, exited };
}

/** The address a node started with PORT=0 listens on, from Fastify's start-up line. */
export async function listeningAddress(node: NodeProcess): Promise<string> {
  const match = (await node.waitFor(/Server listening at (http:\/\/[\d.:]+)/)) as RegExpMatchArray;
  await node.waitFor('wos listening');
  return match[1]!;
}
