// JSON-RPC 2.0 error objects of the MCP endpoint (shared with the HTTP error mapper, which answers every
// error on /mcp in this shape), and the event-stream form of an answer.
import type { ErrorEnvelope } from '../../core/errors.ts';

export type JsonRpcId = string | number | null;

export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Failures of the HTTP request rather than of the JSON-RPC message: authentication, origin, 405, 413 ... */
  serverError: -32001,
} as const;

export function rpcError(id: JsonRpcId, code: number, message: string, envelope?: ErrorEnvelope) {
  return { jsonrpc: '2.0', id, error: { code, message, ...(envelope ? { data: envelope } : {}) } };
}

/** Messages as a text/event-stream body: the answer and the notifications sent before it. */
export function eventStream(messages: unknown[]): string {
  return messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join('');
}
