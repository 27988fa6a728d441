// Storage and IDs of the browser SDK: localStorage with an in-memory fallback, UUIDs, the stored queue, the
// anonymous and session IDs. Bundled into wos-analytics.js with the rest (src/surfaces/sdk/sdk-routes.ts).

const SESSION_IDLE_MS = 30 * 60 * 1000;
export const QUEUE_KEY = 'wos_queue';
export const USER_KEY = 'wos_user';
const ANON_KEY = 'wos_anon';
const SESSION_KEY = 'wos_session';

/** Used when localStorage is unavailable (private modes, disabled storage) or full. */
const memory: Record<string, string> = {};

export function load(key: string): string | null {
  try {
    const value = localStorage.getItem(key);
    if (value !== null) return value;
  } catch {}
  return key in memory ? memory[key] : null;
}

export function save(key: string, value: string): boolean {
  memory[key] = value;
  try {
    localStorage.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}

export function uuid(): string {
  const c = globalThis.crypto;
  // randomUUID exists only in secure contexts (https, localhost); getRandomValues everywhere.
  if (c?.randomUUID) return c.randomUUID();
  const b = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = (Math.random() * 256) | 0;
  b[6] = (b[6] & 15) | 64;
  b[8] = (b[8] & 63) | 128;
  let hex = '';
  for (let i = 0; i < 16; i++)
    hex += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + (b[i] | 256).toString(16).slice(1);
  return hex;
}

/** The events stored under QUEUE_KEY (by any tab of the origin); anything unreadable counts as none. */
export function storedEvents<T extends { event_id: string }>(): T[] {
  try {
    const list = JSON.parse(load(QUEUE_KEY) || '[]');
    return Array.isArray(list) ? list.filter((e) => e && typeof e.event_id === 'string') : [];
  } catch {
    return [];
  }
}

/** The session shared by the origin's tabs, renewed after 30 minutes without a tracked event. */
export function sessionId(now: number): string {
  let session: { id?: string; t?: number } | null = null;
  try {
    session = JSON.parse(load(SESSION_KEY) || 'null');
  } catch {}
  const id = session?.id && now - (session.t || 0) <= SESSION_IDLE_MS ? session.id : uuid();
  save(SESSION_KEY, JSON.stringify({ id, t: now }));
  return id;
}

export function anonymousId(): string {
  const id = load(ANON_KEY) || uuid();
  save(ANON_KEY, id);
  return id;
}
