// Starts a benchmark server in a child process and waits until `readyUrl` answers.
import { type ChildProcess, spawn } from 'node:child_process';

export async function spawnReady(
  args: string[],
  env: Record<string, string>,
  readyUrl: string,
  cwd?: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const ready = await fetch(readyUrl).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`${args.join(' ')} did not become ready`);
}
