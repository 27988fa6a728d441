// What a surface hands the pipeline (a Call), what it gets back (a CallOutcome), and the dependencies the
// pipeline runs with (PipelineDeps): the surfaces, the worker and the pipeline share these types.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { QueueBackend } from '../jobs/types.ts';
import type { Registry } from '../registry.ts';
import type { BrowserAccess, Principal } from './auth.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import type { Clock } from './clock.ts';
import type { OperationDefinition } from './define-operation.ts';
import type { ServiceError } from './errors.ts';
import type { OutboxRelay } from './outbox-relay.ts';
import type { PrincipalCache } from './principal-cache.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { UsageRecorder } from './usage-recorder.ts';

export interface PipelineDeps {
  database: Database;
  config: Config;
  clock: Clock;
  rateLimiter: RateLimiter;
  authThrottle: AuthThrottle;
  registry: Registry;
  logger: Logger;
  usage: UsageRecorder;
  /** The job queue of this node: jobs are enqueued through a call's transaction (ctx.enqueue, ctx.startRun). */
  jobs: QueueBackend;
  /** Hands committed outbox events to the consumers; nudged after every write that stored some. */
  relay: OutboxRelay;
  /** PostgreSQL: credential lookups cached on this node, invalidated from every node (LISTEN/NOTIFY). */
  principals?: PrincipalCache;
}

export interface Call {
  surface: 'rest' | 'mcp' | 'worker';
  requestId: string;
  /** Route template (POST /v1/contacts) or tool name, for the call event. */
  route: string;
  method: string;
  toolName: string;
  operation: OperationDefinition | undefined;
  input: unknown;
  /** REST query strings are coerced to the schema's types; JSON bodies and MCP arguments never are. */
  coerce: boolean;
  authorization?: string;
  /** The client address (REST): rejected credentials are throttled per address. */
  clientAddress?: string;
  /** A public key from a web page (rest.browser routes), with the page's Origin: used instead of authorization. */
  publicKey?: { key: string; origin: string | undefined; access: BrowserAccess };
  /** REST: the Idempotency-Key header, an alias of the input's idempotency_key (creates, run starts). */
  idempotencyHeader?: string;
  /** x-wos-workspace-id (or x-service-workspace-id): when sent, it must name the credential's workspace. */
  workspaceHeader?: string;
  userAgent?: string;
  /** MCP authenticates the connection before dispatching, and passes the principal on. */
  principal?: Principal;
  /** /mcp?profile=, ?modules=, ?tools= (and a session's enabled profiles) narrow the callable tools. */
  toolFilter?: ReadonlySet<string>;
  /** The MCP session the call was sent in (Mcp-Session-Id), for tools that change it (enable_toolset). */
  mcpSession?: { id: string; profiles: readonly string[] };
  /** A worker call (run-on-behalf.ts): the credential it acts for, loaded and checked when the call runs. */
  onBehalfOf?: { workspaceId: string; credentialId: string; actorName: string; causedBy?: string };
}

export type CallOutcome =
  | {
      ok: true;
      status: number;
      body: Record<string, unknown>;
      headers: Record<string, string>;
      raw?: { contentType: string; payload: string | Buffer };
    }
  | { ok: false; error: ServiceError; headers: Record<string, string> };
