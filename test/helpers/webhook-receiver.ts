// A local HTTP receiver for webhook and web push tests: records every request and answers as told.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface Reply {
  /** Never answer (the connection stays open until the receiver closes). */
  hang?: boolean;
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How to answer the next requests (default 200). */
  respond(reply: Reply | ((request: Received) => Reply)): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: (request: Received) => Reply = () => ({ status: 200, body: 'ok' });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        text: body.toString('utf8'),
      };
      received.push(request);
      const reply = answer(request);
      if (reply.hang) return;
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respond: (reply) => {
      answer = typeof reply === 'function' ? reply : () => reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
