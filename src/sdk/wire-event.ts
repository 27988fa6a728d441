// One event as the SDK queues, stores and sends it: the checked target of track() plus the IDs and the
// page context the SDK fills in when it is tracked (kept across retries and reloads).
import { anonymousId, load, sessionId, USER_KEY, uuid } from './browser-storage.ts';
import type { Target } from './track-arguments.ts';

export interface WireEvent {
  event_id: string;
  app: string;
  event_name: string;
  object_type: string;
  object_id: string;
  properties: Record<string, unknown>;
  occurred_at: string;
  [context: string]: unknown;
}

/** The ingest schema's limit on context strings. */
const MAX_CONTEXT = 2000;

/** The event of `target`, tracked now, with this page's context (`referrer` as given). */
export function wireEvent(app: string, target: Target, referrer: string): WireEvent {
  const now = Date.now();
  const event: WireEvent = { event_id: uuid(), app, ...target, occurred_at: new Date(now).toISOString() };
  let timezone: string | undefined;
  try {
    timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {}
  const context: Record<string, string | null | undefined> = {
    user_id: load(USER_KEY),
    anonymous_id: anonymousId(),
    session_id: sessionId(now),
    page_url: location.href,
    referrer,
    locale: navigator.language,
    timezone,
  };
  // Empty context is left out (the service wants 1..2000 characters when a field is sent).
  for (const k in context) if (context[k]) event[k] = context[k]!.slice(0, MAX_CONTEXT);
  return event;
}
