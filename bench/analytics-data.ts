// Synthetic application events for `npm run bench:analytics`: ingest batches as an SDK or a back end sends
// them, and the rollups and daily actors that a month of events leaves behind, one object at a time (so a
// 10-million-event seed never sits in memory). Deterministic: a seeded generator, the same data every run.

export const APPS = ['android', 'ios', 'web'] as const;
export const OBJECT_TYPES = ['article', 'checkout', 'page', 'product', 'video'] as const;
/** Sorted, so rollup rows come out in primary-key order (event_name before hour). */
export const EVENT_NAMES = [
  'article.read',
  'article.shared',
  'cart.item_added',
  'cart.item_removed',
  'checkout.completed',
  'checkout.started',
  'comment.posted',
  'form.submitted',
  'link.clicked',
  'page.scrolled',
  'page.viewed',
  'product.compared',
  'product.viewed',
  'search.performed',
  'session.started',
  'signup.completed',
  'video.completed',
  'video.paused',
  'video.started',
  'wishlist.added',
] as const;
const USERS = 200_000;
const ANONYMOUS = 500_000;
const HOUR = 3_600_000;
/** The seed covers the last 30 days by hour, the current hour included. */
export const WINDOW_HOURS = 720;

/** mulberry32: small, fast and good enough for synthetic data. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws 0..n-1 with probability proportional to 1/(i+1)^s: popularity as it is on real sites. */
export function zipf(n: number, s: number, rng: () => number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cdf[i] = total += 1 / (i + 1) ** s;
  for (let i = 0; i < n; i++) cdf[i]! /= total;
  return () => {
    const u = rng();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface ObjectKey {
  app: string;
  object_type: string;
  object_id: string;
}

/** The object of popularity rank `rank` (0 the most popular); keys do not sort by popularity. */
export function objectAt(rank: number): ObjectKey {
  const scrambled = (Math.imul(rank + 1, 2_654_435_761) >>> 0) % 1_000_000_007;
  return {
    app: APPS[rank % APPS.length]!,
    object_type: OBJECT_TYPES[Math.floor(rank / APPS.length) % OBJECT_TYPES.length]!,
    object_id: `${scrambled.toString(36).padStart(7, '0')}${rank.toString(36)}`,
  };
}

/** The map's value for the key, made and stored on first use. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

const pick = <T>(list: readonly T[], rng: () => number) => list[Math.floor(rng() * list.length)]!;
const PLANS = ['free', 'starter', 'pro', 'enterprise'];
const BROWSERS = ['chrome', 'firefox', 'safari', 'edge'];
const LOCALES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'ja-JP'];
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Europe/London', 'America/Los_Angeles'];

/** About 200 bytes of JSON, like a product event's properties. */
export function propertiesOf(rng: () => number, key: ObjectKey) {
  return {
    path: `/${key.object_type}s/${key.object_id}`,
    plan: pick(PLANS, rng),
    browser: pick(BROWSERS, rng),
    screen: { width: pick([390, 768, 1280, 1440, 1920], rng), height: pick([844, 1024, 800, 900], rng) },
    experiment: `exp-${Math.floor(rng() * 40)}`,
    variant: pick(['control', 'a', 'b'], rng),
    value: Math.round(rng() * 50_000) / 100,
    currency: 'EUR',
    duration_ms: Math.floor(rng() * 120_000),
  };
}

/**
 * One batch body as a string split where each event's ID prefix goes: `parts.join(prefix)` gives a body
 * whose event_ids are new for every prefix, so a replayed template is never deduplicated.
 */
export function batchTemplate(seed: number, size: number, objects: number, now: number): string[] {
  const rng = random(seed);
  const object = zipf(objects, 1, rng);
  const name = zipf(EVENT_NAMES.length, 1.1, rng);
  const events = Array.from({ length: size }, (_, i) => {
    const key = objectAt(object());
    const known = rng() < 0.7;
    return {
      event_id: `@@-${i}`,
      app: key.app,
      event_name: EVENT_NAMES[name()]!,
      object_type: key.object_type,
      object_id: key.object_id,
      properties: propertiesOf(rng, key),
      occurred_at: new Date(now - Math.floor(rng() * 600_000)).toISOString(),
      ...(known ? { user_id: `usr_${Math.floor(rng() * USERS)}` } : {}),
      anonymous_id: `anon_${Math.floor(rng() * ANONYMOUS)}`,
      session_id: `ses_${Math.floor(rng() * 1e9).toString(36)}`,
      page_url: `https://shop.example.com/${key.object_type}s/${key.object_id}`,
      locale: pick(LOCALES, rng),
      timezone: pick(ZONES, rng),
    };
  });
  return JSON.stringify({ events }).split('@@');
}

/** Expected events of each popularity rank: Zipf (s = 1) over the objects, at least one each. */
export function eventsPerObject(total: number, objects: number): Int32Array {
  const weights = Float64Array.from({ length: objects }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  return Int32Array.from(weights, (w) => Math.max(1, Math.round((total * w) / sum)));
}

/** Values in column order, without workspace_id: app, object_type, object_id, event_name, hour, events,
 * first_seen, last_seen (rollups); app, object_type, object_id, day, actor (actors). Flat arrays, no
 * objects: a 10-million-event seed makes millions of rows. */
export interface SimulatedObject {
  rollups: (string | number)[];
  actors: string[];
}

export const ROLLUP_COLUMNS = 8;
export const ACTOR_COLUMNS = 5;

const DIURNAL = Array.from(
  { length: 24 },
  (_, h) => 0.25 + Math.sin((Math.PI * Math.max(0, h - 5)) / 19) ** 2,
);
const SECONDS = Array.from(
  { length: 3_600 },
  (_, s) => `:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`,
);

/** The seed's hours as text (first the hour 719 hours before the current one), and their UTC days. */
export function hoursFrom(firstHour: number) {
  const hours = Array.from({ length: WINDOW_HOURS }, (_, h) => new Date(firstHour + h * HOUR).toISOString());
  return { hours, prefixes: hours.map((h) => h.slice(0, 13)), days: hours.map((h) => h.slice(0, 10)) };
}

/**
 * A month of one object's events: sessions of 1 to ~10 events by one actor within an hour (busier in the
 * day), event names skewed per object; summed into hourly rollups (in primary-key order) and distinct
 * actors per UTC day, as ingest would have left them.
 */
export function simulateObject(
  rank: number,
  events: number,
  time: ReturnType<typeof hoursFrom>,
): SimulatedObject {
  const rng = random(rank * 7919 + 17);
  const key = objectAt(rank);
  const name = zipf(EVENT_NAMES.length, 1.1, rng);
  const rotate = rank % EVENT_NAMES.length;
  const firstHourOfDay = Number(time.hours[0]!.slice(11, 13));
  const cells = new Map<number, number[]>();
  const days = new Map<string, Set<string>>();
  for (let left = events; left > 0; ) {
    const size = Math.min(left, 1 + Math.floor(-Math.log(1 - rng()) * 2.5));
    left -= size;
    let hour: number;
    do hour = Math.floor(rng() * WINDOW_HOURS);
    while (rng() * 1.25 > DIURNAL[(firstHourOfDay + hour) % 24]!);
    const start = Math.floor(rng() * 3_300);
    const actor = rng() < 0.7 ? `usr_${Math.floor(rng() * USERS)}` : `anon_${Math.floor(rng() * ANONYMOUS)}`;
    const day = time.days[hour]!;
    entry(days, day, () => new Set<string>()).add(actor);
    for (let i = 0; i < size; i++) {
      const cell = ((name() + rotate) % EVENT_NAMES.length) * WINDOW_HOURS + hour;
      const second = Math.min(3_599, start + i * 30);
      const seen = cells.get(cell);
      if (!seen) cells.set(cell, [1, second, second]);
      else {
        seen[0]!++;
        if (second < seen[1]!) seen[1] = second;
        if (second > seen[2]!) seen[2] = second;
      }
    }
  }
  const rollups: (string | number)[] = [];
  for (const cell of [...cells.keys()].sort((a, b) => a - b)) {
    const [count, first, last] = cells.get(cell)!;
    const hour = cell % WINDOW_HOURS;
    const prefix = time.prefixes[hour]!;
    rollups.push(
      key.app,
      key.object_type,
      key.object_id,
      EVENT_NAMES[Math.floor(cell / WINDOW_HOURS)]!,
      time.hours[hour]!,
      count!,
      prefix + SECONDS[first!],
      prefix + SECONDS[last!],
    );
  }
  const actors: string[] = [];
  for (const day of [...days.keys()].sort()) {
    for (const actor of [...days.get(day)!].sort()) {
      actors.push(key.app, key.object_type, key.object_id, day, actor);
    }
  }
  return { rollups, actors };
}
