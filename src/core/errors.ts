// The one catalogue of error codes. Every failure the service reports is built by `fail()` from here;
// each surface has one mapper that turns a ServiceError into its wire shape.

export interface FieldError {
  field: string;
  message: string;
}

interface CatalogueEntry {
  status: number;
  message: string;
  retryable: boolean;
  description: string;
}

export const errorCatalogue = {
  authentication_required: {
    status: 401,
    message: 'Send a credential as "Authorization: Bearer <token>".',
    retryable: false,
    description: 'The request has no Authorization header, or it is not a Bearer token.',
  },
  workspace_not_found: {
    status: 404,
    message: 'No workspace was found for this credential.',
    retryable: false,
    description: 'The token is unknown or revoked, or its workspace was deleted.',
  },
  credential_not_allowed: {
    status: 403,
    message: 'This kind of credential cannot be used on this surface.',
    retryable: false,
    description:
      'REST (/v1) takes API keys; /mcp takes MCP tokens and API keys; /admin/v1 takes the operator token.',
  },
  origin_not_allowed: {
    status: 403,
    message: 'Requests from this Origin are not allowed.',
    retryable: false,
    description:
      'Browser calls to /mcp must come from a configured origin (WOS_MCP_ALLOWED_ORIGINS) or from loopback.',
  },
  mcp_auth_method_not_allowed: {
    status: 403,
    message: 'This MCP authentication method is not allowed by the workspace policy.',
    retryable: false,
    description: 'The workspace restricts which credential kinds may call /mcp (mcp_auth_methods).',
  },
  module_not_enabled: {
    status: 403,
    message: 'This module is not enabled for the workspace.',
    retryable: false,
    description: 'The operator disabled the module that owns this route or tool.',
  },
  missing_required_scope: {
    status: 403,
    message: 'The credential lacks a scope this operation requires.',
    retryable: false,
    description: 'The credential does not hold the scope named in required_scope.',
  },
  rate_limited: {
    status: 429,
    message: 'The workspace exceeded its rate limit; retry after retry_after_seconds.',
    retryable: true,
    description:
      'Requests are limited per workspace and minute, across all its credentials. Rejected credentials are ' +
      'limited too: after 20 in a minute from one address, further ones answer 429 until the minute ends. ' +
      'A workspace runs at most WOS_HEAVY_READS_PER_WORKSPACE heavy reads (text searches, analytics) at once; ' +
      'one more waits up to WOS_HEAVY_READ_WAIT_MS for a slot, then answers 429.',
  },
  billing_paused: {
    status: 402,
    message: 'Billable usage is paused: prepaid credit is exhausted or the monthly cap is reached.',
    retryable: false,
    description: 'The operator must add credit or raise the monthly cap.',
  },
  billing_limit_exceeded: {
    status: 403,
    message: 'This operation exceeds an entitlement limit of the workspace.',
    retryable: false,
    description: 'The workspace may hold at most a set number of records of this type.',
  },
  validation_failed: {
    status: 400,
    message: 'The input failed validation; see field_errors.',
    retryable: false,
    description: 'Missing, unknown or mistyped fields, malformed JSON, or a value a rule rejects.',
  },
  idempotency_conflict: {
    status: 409,
    message: 'This idempotency_key was already used with a different input.',
    retryable: false,
    description: 'Reuse a key only to retry the same input; send a new key for a new write.',
  },
  conflict: {
    status: 409,
    message: 'The request conflicts with the current state of the resource.',
    retryable: false,
    description:
      'The resource has moved past the state this request needs: for example, bytes PUT to an asset upload URL ' +
      'after complete_asset_upload made the asset ready (its content is final), or an upload completed after ' +
      'its upload window closed. Read the resource again; retrying the same request will not succeed.',
  },
  resource_not_found: {
    status: 404,
    message: 'The resource does not exist in this workspace.',
    retryable: false,
    description: 'The ID is unknown, or belongs to another workspace.',
  },
  tool_not_found: {
    status: 404,
    message: 'No tool of that name is registered for this API version; call tools/list for the names.',
    retryable: false,
    description: 'The MCP tool name is unknown, or outside the modules this connection selected.',
  },
  mcp_session_not_found: {
    status: 404,
    message: 'No MCP session of this credential has that Mcp-Session-Id; initialize a new session.',
    retryable: false,
    description:
      'The session ended (DELETE /mcp), expired after 24 hours without a request, or belongs to another ' +
      'credential. Send initialize without the header to start a new one.',
  },
  mcp_session_required: {
    status: 400,
    message: 'This tool changes an MCP session: initialize one and send its Mcp-Session-Id header.',
    retryable: false,
    description:
      'enable_toolset adds tools to the listing of an MCP session. A client without a session connects ' +
      'with /mcp?profile=<name> instead.',
  },
  route_not_found: {
    status: 404,
    message: 'No route matches this path.',
    retryable: false,
    description: 'Check the path against /openapi.json.',
  },
  method_not_allowed: {
    status: 405,
    message: 'This path does not accept this HTTP method.',
    retryable: false,
    description: 'The path exists with other methods; the Allow header lists them.',
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is larger than the limit of 1 MiB.',
    retryable: false,
    description: 'Send a smaller body.',
  },
  signature_invalid: {
    status: 403,
    message: 'The signed URL is not valid: its signature does not match or it has expired.',
    retryable: false,
    description:
      'Signed asset URLs (upload and download) carry expires and signature in the query string. A changed, ' +
      'expired or foreign URL is refused; ask for a new one (create_asset_upload_intent, get_asset_download_url).',
  },
  unsupported_media_type: {
    status: 415,
    message: 'Send request bodies as application/json.',
    retryable: false,
    description: 'The Content-Type of the body is not application/json.',
  },
  request_timeout: {
    status: 408,
    message: 'The request did not arrive completely in time.',
    retryable: true,
    description:
      'The head and body of a request must arrive within WOS_REQUEST_TIMEOUT_MS (a body shorter than its ' +
      'Content-Length waits for this). The connection is closed; send the request again, whole.',
  },
  request_header_fields_too_large: {
    status: 431,
    message: 'The request line and headers are larger than the limit of 16 KiB.',
    retryable: false,
    description: 'Usually a query string that is too long: send fewer or shorter filters.',
  },
  query_timeout: {
    status: 504,
    message: 'The query ran longer than its time limit and was stopped.',
    retryable: false,
    description:
      'A heavy read (a text search, an analytics query) runs at most WOS_HEAVY_READ_TIMEOUT_MS (default 30 s) ' +
      'and is then stopped; on PostgreSQL every other statement of a call, WOS_STATEMENT_TIMEOUT_MS (default ' +
      '5 s). The same call will likely time out again: narrow it (filters, a shorter period, a smaller page) first.',
  },
  write_conflict: {
    status: 503,
    message:
      'The write collided with concurrent writes and was rolled back; retry after retry_after_seconds.',
    retryable: true,
    description:
      'A deadlock or serialization failure (PostgreSQL; the service already ran the call three times), or ' +
      'a database still locked after its 5 s busy timeout (SQLite). Nothing of the call was stored. Retry ' +
      'it as it is.',
  },
  upstream_unavailable: {
    status: 503,
    message: 'A service the operator configured (an embeddings endpoint) did not answer usefully.',
    retryable: true,
    description:
      'An outbound dependency configured by the operator (WOS_EMBEDDINGS_URL for a vector search by text) ' +
      'timed out or answered an error. Retry with backoff, or avoid the dependency (search with a vector).',
  },
  internal_error: {
    status: 500,
    message: 'The service could not complete the request.',
    retryable: true,
    description: 'Retry with bounded exponential backoff and jitter; quote the request_id to the operator.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorExtras {
  message?: string;
  field_errors?: FieldError[];
  required_scope?: string;
  retry_after_seconds?: number;
  idempotency_key?: string;
  allow?: string[];
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: Omit<ErrorExtras, 'message' | 'allow'>;
  readonly allow: string[] | undefined;

  constructor(code: ErrorCode, extras: ErrorExtras = {}) {
    const entry = errorCatalogue[code];
    super(extras.message ?? entry.message);
    this.code = code;
    this.status = entry.status;
    const { message: _message, allow, ...rest } = extras;
    this.extras = rest;
    this.allow = allow;
  }
}

/** The one factory for service errors. */
export function fail(code: ErrorCode, extras: ErrorExtras = {}): ServiceError {
  return new ServiceError(code, extras);
}

export function validationFailed(fieldErrors: FieldError[], message?: string): ServiceError {
  return fail('validation_failed', { field_errors: fieldErrors, message });
}

export function notFound(what = 'resource'): ServiceError {
  return fail('resource_not_found', { message: `The ${what} does not exist in this workspace.` });
}

/** A heavy read stopped at its time limit (SQLite: its worker killed; PostgreSQL: statement_timeout). */
export function queryTimedOut(limitMs: number): ServiceError {
  return fail('query_timeout', {
    message:
      `The query ran longer than its limit of ${limitMs} ms and was stopped; ` +
      'narrow it (filters, a shorter period, a smaller page) before retrying.',
  });
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    request_id: string;
    docs_url: string;
  } & Omit<ErrorExtras, 'message' | 'allow'>;
}

export function toEnvelope(error: ServiceError, requestId: string, publicUrl: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      docs_url: `${publicUrl}/docs/api/errors#${error.code}`,
      ...error.extras,
    },
  };
}

/** Anything thrown that is not a ServiceError becomes internal_error: no stack or SQL reaches a client. */
export function asServiceError(thrown: unknown): ServiceError {
  return thrown instanceof ServiceError ? thrown : fail('internal_error');
}
