// The one API client: openapi-fetch over the types generated from this service's OpenAPI document
// (api/schema.d.ts). Every call carries the signed-in key as a Bearer token; `ok` turns an error answer into
// an ApiError that keeps the API's message, code, request_id and missing scope for the page to show.
import createClient from 'openapi-fetch';
import type { components, paths } from './api/schema.js';
import { apiKey, signOut } from './session.ts';

export type Schemas = components['schemas'];

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly requestId: string | null,
    readonly requiredScope: string | null = null,
  ) {
    super(message);
  }
}

export const api = createClient<paths>({ baseUrl: location.origin });
api.use({
  onRequest({ request }) {
    const key = apiKey.value;
    if (key) request.headers.set('authorization', `Bearer ${key}`);
    return request;
  },
  onResponse({ response }) {
    // The key stopped working (revoked, or its workspace deleted): forget it and ask for another.
    if (response.status === 401) signOut();
    return response;
  },
});

interface ErrorBody {
  error?: { code?: string; message?: string; request_id?: string; required_scope?: string };
}

/** The data of a successful answer; an error answer (or no answer) throws ApiError. */
export async function ok<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  let result: Awaited<typeof pending>;
  try {
    result = await pending;
  } catch (cause) {
    throw new ApiError(`The service did not answer (${String(cause)}).`, 0, 'network_error', null);
  }
  const { data, error, response } = result;
  if (response.ok && data !== undefined) return data as NonNullable<T>;
  const body = (error ?? {}) as ErrorBody;
  throw new ApiError(
    body.error?.message ?? `The service answered ${response.status}.`,
    response.status,
    body.error?.code ?? 'unknown_error',
    body.error?.request_id ?? response.headers.get('x-request-id'),
    body.error?.required_scope ?? null,
  );
}

/** An idempotency key for one press of a create button (a retry of the same press replays it). */
export const pressKey = () => `console-${crypto.randomUUID()}`;
