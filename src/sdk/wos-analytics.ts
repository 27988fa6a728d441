/// <reference lib="dom" />
// wos browser SDK: application events from web pages to POST /v1/insights/app-events with a site key.
// Browser code only (no Node APIs, no dependencies); src/surfaces/sdk/sdk-routes.ts bundles it with esbuild
// into /sdk/wos-analytics.js (IIFE, global `wos`) and /sdk/wos-analytics.mjs. Delivery is at least once:
// every event carries an event_id made here and kept across retries and reloads, and the service stores a
// re-sent event_id once, so resending is always safe and losing an event is what the code avoids. No
// function of it throws into the page: bad arguments are reported with console.warn, and so is a failure.

import { QUEUE_KEY, save, storedEvents, USER_KEY } from './browser-storage.ts';
import { checkTrack, type TrackOptions } from './track-arguments.ts';
import { type WireEvent, wireEvent } from './wire-event.ts';

export type { TrackOptions };

export interface InitOptions {
  /** Base URL of the service, e.g. https://wos.example.com. */
  endpoint: string;
  /** The Analytics Site's public key (wos_site_...). */
  siteKey: string;
  /** Sent as x-wos-workspace-id on fetch requests (a beacon cannot set headers). */
  workspaceId?: string;
  /** The app every event of this page belongs to. */
  app: string;
}

const BATCH_SIZE = 20;
const BATCH_MS = 2000;
/** The event wos.page() sends: dotted, so a workspace with validation on can define it. */
const PAGE_EVENT = 'page.viewed';
/** Unsent events kept (memory and localStorage); the oldest are dropped beyond it. */
const MAX_QUEUE = 1000;
const MAX_BACKOFF_MS = 60_000;
/** Browsers cap keepalive fetch and sendBeacon bodies at 64 KiB in flight; stay under it. */
const KEEPALIVE_BYTES = 60_000;

let config: InitOptions | undefined;
let queue: WireEvent[] = [];
let sending: Promise<void> | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let retryAt = 0;
let persisting = false;
let attempts = 0;
/** The URL of this document's last wos.page(): the referrer of the next one (a single-page app's route). */
let lastPage: string | undefined;
const warned: Record<string, 1> = {};

function warn(kind: string, message: string): void {
  if (warned[kind]) return;
  warned[kind] = 1;
  console.warn('[wos] ' + message);
}

/**
 * Writes this page's queue to localStorage, merged with what other tabs of the origin keep there (so one
 * tab's write does not erase another's events) minus the events just delivered (`done`).
 */
function persist(done?: Record<string, 1>): void {
  const mine: Record<string, 1> = {};
  for (const e of queue) mine[e.event_id] = 1;
  let list = storedEvents<WireEvent>()
    .filter((e) => !mine[e.event_id] && !done?.[e.event_id])
    .concat(queue)
    .slice(-MAX_QUEUE);
  // A full storage quota: keep the newest half until it fits (the page still holds its own in memory).
  while (!save(QUEUE_KEY, JSON.stringify(list)) && list.length) list = list.slice(Math.ceil(list.length / 2));
}

/**
 * One write per burst of track() calls, a microtask later: the page cannot go away before microtasks run, and
 * a loop of tracks does not rewrite the whole stored queue per event.
 */
function persistSoon(): void {
  if (persisting) return;
  persisting = true;
  Promise.resolve().then(() => {
    persisting = false;
    persist();
  });
}

function remove(events: WireEvent[]): void {
  const done: Record<string, 1> = {};
  for (const e of events) done[e.event_id] = 1;
  queue = queue.filter((e) => !done[e.event_id]);
  persist(done);
}

function url(c: InitOptions): string {
  return c.endpoint.replace(/\/+$/, '') + '/v1/insights/app-events?site_key=' + encodeURIComponent(c.siteKey);
}

function schedule(ms: number): void {
  if (timer === undefined)
    timer = setTimeout(() => {
      timer = undefined;
      flush();
    }, ms);
}

function backoff(): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempts);
  return base / 2 + (Math.random() * base) / 2;
}

/** Sends one batch: 0 when it is done with (stored, or refused for good), else the ms to wait before a retry. */
async function post(c: InitOptions, batch: WireEvent[]): Promise<number> {
  const body = JSON.stringify({ events: batch });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (c.workspaceId) headers['x-wos-workspace-id'] = c.workspaceId;
  let response: Response;
  try {
    response = await fetch(url(c), {
      method: 'POST',
      headers,
      body,
      credentials: 'omit',
      // keepalive lets the request outlive the page, within the browser's 64 KiB budget.
      keepalive: new Blob([body]).size < KEEPALIVE_BYTES,
    });
  } catch {
    return backoff();
  }
  const status = response.status;
  if (status === 429 || status >= 500) {
    const after = Number(response.headers.get('retry-after'));
    return after > 0 ? after * 1000 * (1 + Math.random() / 10) : backoff();
  }
  const answer = await response.json().catch(() => ({}));
  // Another 4xx will not change on a resend (a refused origin, a paused site, invalid events): drop it.
  if (status >= 400) warn('status', `events dropped: HTTP ${status} ${answer?.error?.code || ''}`);
  else if (answer?.rejected?.length)
    warn('rejected', 'events rejected: ' + JSON.stringify(answer.rejected[0].field_errors));
  return 0;
}

async function drain(): Promise<void> {
  while (config && queue.length) {
    const wait = retryAt - Date.now();
    if (wait > 0) return schedule(wait);
    const batch = queue.slice(0, BATCH_SIZE);
    const delay = await post(config, batch);
    if (delay) {
      attempts++;
      retryAt = Date.now() + delay;
    } else {
      attempts = 0;
      remove(batch);
    }
  }
}

/**
 * Sends the queued events now. Resolves when the queue is empty, or when a send failed: those events stay
 * queued and are retried with backoff.
 */
export function flush(): Promise<void> {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  if (!sending)
    sending = drain()
      .catch((error) => warn('failed', `sending failed: ${error}`))
      .finally(() => {
        sending = undefined;
        // An event tracked while the last send was finishing still gets its turn.
        if (queue.length) schedule(BATCH_MS);
      });
  return sending;
}

/** The page is going away (or hidden, maybe for good): hand the queue to the browser with sendBeacon. */
function beacon(): void {
  const c = config;
  if (!c || !queue.length || !navigator.sendBeacon) return;
  const done: Record<string, 1> = {};
  let chunk: WireEvent[] = [];
  let size = 0;
  const send = () => {
    const ok =
      chunk.length > 0 &&
      navigator.sendBeacon(url(c), new Blob([JSON.stringify({ events: chunk })], { type: 'text/plain' }));
    if (ok) for (const e of chunk) done[e.event_id] = 1;
    chunk = [];
    size = 0;
    return ok;
  };
  for (const e of queue) {
    const bytes = JSON.stringify(e).length + 1;
    if (size + bytes > KEEPALIVE_BYTES && chunk.length && !send()) break;
    chunk.push(e);
    size += bytes;
  }
  send();
  // What the browser accepted is its to deliver; what it refused stays in localStorage for the next page.
  remove(queue.filter((e) => done[e.event_id]));
}

/** Runs an entry point of the SDK: whatever goes wrong is a warning, never an exception in the page. */
function guarded(name: string, work: () => void): void {
  try {
    work();
  } catch (error) {
    warn(`${name}-error`, `wos.${name}() failed: ${error}`);
  }
}

export function init(options: InitOptions): void {
  guarded('init', () => {
    const o = (options ?? {}) as Partial<InitOptions>;
    const missing = (['endpoint', 'siteKey', 'app'] as const).filter(
      (k) => typeof o[k] !== 'string' || !o[k],
    );
    if (missing.length) {
      warn('init-options', `wos.init() needs ${missing.join(', ')} (strings); nothing will be sent`);
      return;
    }
    const first = !config;
    config = options;
    if (first) {
      addEventListener('pagehide', () => guarded('beacon', beacon));
      document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'hidden') guarded('beacon', beacon);
      });
    }
    // Events an earlier page (or another tab) could not send, with their original event_id and occurred_at.
    const have: Record<string, 1> = {};
    for (const e of queue) have[e.event_id] = 1;
    queue = storedEvents<WireEvent>()
      .filter((e) => !have[e.event_id])
      .concat(queue)
      .slice(-MAX_QUEUE);
    if (queue.length) flush();
  });
}

/** The signed-in user for the events tracked from now on (kept across reloads); empty or null: signed out. */
export function identify(userId?: string | null): void {
  guarded('identify', () => {
    if (userId != null && typeof userId !== 'string') {
      warn('identify-arg', 'wos.identify() takes a string user ID, or null to sign out');
      return;
    }
    save(USER_KEY, userId || '');
  });
}

/**
 * Queues an event. Without object_type and object_id the event is about the page: object_type `page`,
 * object_id the path. Arguments it cannot send are reported with console.warn and the event dropped.
 */
export function track(eventName: string, options?: TrackOptions): void {
  guarded('track', () => enqueue(eventName, options));
}

/**
 * Sends a page view (`page.viewed` about object `page` / the path) with the page's URL and referrer: the
 * document's referrer the first time, then the URL of the previous wos.page() (a single-page app's route).
 */
export function page(properties?: Record<string, unknown>): void {
  guarded('page', () => {
    const url = location.href;
    if (enqueue(PAGE_EVENT, { properties }, lastPage ?? document.referrer)) lastPage = url;
  });
}

function enqueue(eventName: unknown, options: unknown, referrer = document.referrer): boolean {
  const c = config;
  if (!c) {
    warn('init', 'call wos.init() before wos.track() or wos.page()');
    return false;
  }
  const target = checkTrack(eventName, options, location.pathname);
  if ('problem' in target) {
    const name = JSON.stringify(String(eventName)).slice(0, 80);
    warn(`arguments:${target.problem}`, `wos.track(${name}) not sent: ${target.problem}`);
    return false;
  }
  queue.push(wireEvent(c.app, target, referrer));
  if (queue.length > MAX_QUEUE) {
    queue.splice(0, queue.length - MAX_QUEUE);
    warn('full', `over ${MAX_QUEUE} unsent events: the oldest are dropped`);
  }
  persistSoon();
  if (queue.length >= BATCH_SIZE) flush();
  else schedule(BATCH_MS);
  return true;
}
