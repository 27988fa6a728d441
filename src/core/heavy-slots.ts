// Fair sharing of the heavy-read connections between workspaces: each workspace runs at most `perWorkspace`
// heavy reads at once on this node; more wait in arrival order for at most `waitMs`, then answer 429
// rate_limited with Retry-After. Without it ten clients of one workspace would hold every heavy connection
// (WOS_HEAVY_READ_POOL_SIZE) and the others' searches would queue behind them until their time limit.
import { fail } from './errors.ts';

export interface HeavySlots {
  /** Runs `work` in one of the workspace's slots, waiting for one to free; rejects rate_limited if none does. */
  run<T>(workspaceId: string, work: () => Promise<T>): Promise<T>;
  /** Heavy reads running in a workspace on this node (tests). */
  running(workspaceId: string): number;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

interface WorkspaceSlots {
  running: number;
  waiters: Waiter[];
}

/** Per-node, in-memory slots (docs/contract.md section 17 says what several nodes mean). */
export function createHeavySlots(options: { perWorkspace: number; waitMs: number }): HeavySlots {
  const byWorkspace = new Map<string, WorkspaceSlots>();

  const refused = () =>
    fail('rate_limited', {
      message:
        `The workspace already runs ${options.perWorkspace} heavy reads (text searches, analytics queries) ` +
        'at once; retry after retry_after_seconds.',
      // A heavy read lasts from milliseconds to its time limit; a second is a polite first backoff.
      retry_after_seconds: 1,
    });

  const acquire = (workspaceId: string): Promise<void> => {
    let slots = byWorkspace.get(workspaceId);
    if (!slots) {
      slots = { running: 0, waiters: [] };
      byWorkspace.set(workspaceId, slots);
    }
    if (slots.running < options.perWorkspace) {
      slots.running++;
      return Promise.resolve();
    }
    if (options.waitMs <= 0) return Promise.reject(refused());
    const queue = slots;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        // The releasing read hands its slot over: `running` stays as it is.
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          queue.waiters.splice(queue.waiters.indexOf(waiter), 1);
          reject(refused());
        }, options.waitMs),
      };
      queue.waiters.push(waiter);
    });
  };

  const release = (workspaceId: string): void => {
    const slots = byWorkspace.get(workspaceId);
    if (!slots) return;
    const next = slots.waiters.shift();
    if (next) {
      next.grant();
      return;
    }
    slots.running--;
    if (slots.running === 0) byWorkspace.delete(workspaceId);
  };

  return {
    async run(workspaceId, work) {
      await acquire(workspaceId);
      try {
        return await work();
      } finally {
        release(workspaceId);
      }
    },
    running: (workspaceId) => byWorkspace.get(workspaceId)?.running ?? 0,
  };
}
