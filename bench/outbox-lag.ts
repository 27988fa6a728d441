// The outbox figure of `npm run bench`: how long after a write its event becomes a webhook delivery (the
// relay handing contact.created to a subscribed endpoint), read from the database once the relay is done.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import SQLite from 'better-sqlite3';

/** A local receiver that accepts every delivery at once (the endpoint the benchmark subscribes). */
export async function startSink(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/**
 * Waits until every event of the workspace is relayed, then measures each delivery from its event's time
 * (taken by the write just before it commits) to the delivery row's creation.
 */
export async function deliveryDelays(file: string, workspaceId: string, timeoutMs = 60_000) {
  const db = new SQLite(file, { readonly: true });
  try {
    const waiting = db.prepare(
      'select count(*) as n from outbox_events where workspace_id = ? and published_at is null',
    );
    const deadline = Date.now() + timeoutMs;
    while ((waiting.get(workspaceId) as { n: number }).n > 0) {
      if (Date.now() > deadline) throw new Error('the relay did not catch up within a minute');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rows = db
      .prepare(
        `select e.occurred_at, d.created_at from webhook_deliveries d
         join outbox_events e on e.workspace_id = d.workspace_id and e.id = d.event_id
         where d.workspace_id = ?`,
      )
      .all(workspaceId) as { occurred_at: string; created_at: string }[];
    const delays = rows
      .map((row) => Date.parse(row.created_at) - Date.parse(row.occurred_at))
      .sort((a, b) => a - b);
    return { count: delays.length, p50: percentile(delays, 0.5), p99: percentile(delays, 0.99) };
  } finally {
    db.close();
  }
}
