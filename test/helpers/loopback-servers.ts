// Loopback servers for tests: pages on origins of their own and a recording proxy in front of the service that
// can answer a delivered batch with 503 (the browser SDK test), and a JSON endpoint standing in for an
// OpenAI-compatible model or embeddings API.
import http from 'node:http';
import type net from 'node:net';

export interface LoopbackServer {
  origin: string;
  close: () => Promise<void>;
}

async function listen(server: http.Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves the HTML set for a path (`pages`), 404 for any other. */
export async function pageServer(): Promise<LoopbackServer & { pages: Map<string, string> }> {
  const pages = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const html = pages.get(new URL(request.url!, 'http://x').pathname);
    response.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html ?? 'not found');
  });
  return { ...(await listen(server)), pages };
}

export interface JsonAnswer {
  /** 200 unless given. */
  status?: number;
  body: unknown;
}

export type JsonServer = LoopbackServer & { url: string };

/**
 * Parses each request's JSON body and answers what `answer` returns, as JSON; undefined never answers (a model
 * that hangs: close drops the connection). `url` is the origin with `path`, which the server does not check.
 */
export async function jsonServer(
  path: string,
  answer: (
    body: any,
    request: http.IncomingMessage,
  ) => JsonAnswer | undefined | Promise<JsonAnswer | undefined>,
): Promise<JsonServer> {
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let reply: JsonAnswer | undefined;
    try {
      reply = await answer(JSON.parse(Buffer.concat(chunks).toString('utf8')), request);
    } catch (error) {
      // A broken script answers 500 rather than crash the test process with an unhandled rejection.
      reply = { status: 500, body: { error: { message: String(error) } } };
    }
    if (reply === undefined || response.destroyed) return;
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply.body));
  });
  const listening = await listen(server);
  return { ...listening, url: `${listening.origin}${path}` };
}

export interface ProxiedCall {
  method: string;
  path: string;
  origin: string | undefined;
  contentType: string | undefined;
  /** The request body, parsed when JSON. */
  request: any;
  /** The service's answer (what the browser got, unless failed). */
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Answered 503 to the browser instead. */
  failed: boolean;
}

const FORWARDED = [
  'origin',
  'content-type',
  'user-agent',
  'x-wos-workspace-id',
  'access-control-request-method',
  'access-control-request-headers',
];

/** Forwards every request to target, recording each; the next `failNext` POSTs are answered 503. */
export async function recordingProxy(
  target: string,
): Promise<LoopbackServer & { calls: ProxiedCall[]; failNext: number }> {
  const state = { calls: [] as ProxiedCall[], failNext: 0 };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const upstream = http.request(
          `${target}${request.url}`,
          { method: request.method, headers },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (part) => (text += part));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
          },
        );
        upstream.on('error', reject);
        upstream.end(Buffer.concat(chunks));
      },
    );
    const failed = request.method === 'POST' && state.failNext > 0;
    if (failed) state.failNext--;
    const parse = (text: string) => {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    };
    state.calls.push({
      method: request.method!,
      path: request.url!,
      origin: request.headers.origin,
      contentType: request.headers['content-type'],
      request: parse(Buffer.concat(chunks).toString('utf8')),
      status: answer.status,
      headers: answer.headers,
      body: parse(answer.text),
      failed,
    });
    const passed: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && (name.startsWith('access-control-') || name === 'vary'))
        passed[name] = value;
    }
    if (failed) {
      response.writeHead(503, { ...passed, 'content-type': 'application/json' });
      response.end('{"error":{"code":"service_unavailable"}}');
      return;
    }
    if (answer.headers['content-type']) passed['content-type'] = answer.headers['content-type'];
    if (answer.headers['retry-after']) passed['retry-after'] = answer.headers['retry-after'];
    response.writeHead(answer.status, passed);
    response.end(answer.text);
  });
  const listening = await listen(server);
  return Object.assign(state, listening);
}
