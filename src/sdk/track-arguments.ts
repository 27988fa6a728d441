// The arguments of wos.track() and wos.page(), checked in the page: a page's script calls them with
// whatever it has, and the SDK must never throw into it. A call it cannot send is dropped with a console
// warning saying why; the service checks the rest (a refused event is reported the same way).

export interface TrackOptions {
  /** With object_id, the object the event is about; both left out: the page (`page` and the path). */
  object_type?: string;
  object_id?: string | number;
  properties?: Record<string, unknown>;
}

/** What one event is about, ready for the queue. */
export interface Target {
  event_name: string;
  object_type: string;
  object_id: string;
  properties: Record<string, unknown>;
}

/** The ingest schema's limits on names and IDs. */
const MAX_TEXT = 200;
/** The object of an event tracked without one: the page it happened on. */
const PAGE_TYPE = 'page';

const isText = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The event track() was asked for, or why it cannot be sent. Without object_type and object_id (or without
 * the second argument) the event is about the page: object_type `page`, object_id `path`.
 */
export function checkTrack(eventName: unknown, options: unknown, path: string): Target | { problem: string } {
  if (!isText(eventName))
    return { problem: `the event name must be a string of 1 to ${MAX_TEXT} characters` };
  if (options !== undefined && options !== null && !isObject(options)) {
    return { problem: 'the second argument must be an object {object_type, object_id, properties}' };
  }
  const { object_type, object_id, properties } = (options ?? {}) as TrackOptions;
  if (properties !== undefined && !isObject(properties)) {
    return { problem: 'properties must be an object' };
  }
  try {
    JSON.stringify(properties);
  } catch {
    return { problem: 'properties must be JSON (no cycles, no BigInt)' };
  }
  const props = properties ?? {};
  if (object_type === undefined && object_id === undefined) {
    const pageId = path.slice(0, MAX_TEXT) || '/';
    return { event_name: eventName, object_type: PAGE_TYPE, object_id: pageId, properties: props };
  }
  const id = typeof object_id === 'number' && Number.isFinite(object_id) ? String(object_id) : object_id;
  if (!isText(object_type) || !isText(id)) {
    return {
      problem: `object_type and object_id must both be strings of 1 to ${MAX_TEXT} characters (or both left out for the page)`,
    };
  }
  return { event_name: eventName, object_type, object_id: id, properties: props };
}
