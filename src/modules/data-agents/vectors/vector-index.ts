// Approximate search: one HNSW graph (hnswlib-node) per collection, in this node's memory, keyed by
// workspace and collection (never shared across workspaces). The database is the source of truth:
// an index remembers the collection version it holds and, before every search, reads what changed since
// (documents written and tombstones of deletions after that version); a missing index is built in the
// background from the database while searches run exactly. docs/modules/vectors.md.
import hnswlib from 'hnswlib-node';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/tables.ts';
import { metadataMatcher } from './vector-filter.ts';
import { decodeVector, TopK } from './vector-math.ts';
import type { Filter, Metadata } from './vector-schemas.ts';
import { collectionState, type ScannedDocument, scanDocuments, tombstonesSince } from './vector-store.ts';
import type { VectorMetric } from './vector-tables.ts';

const { HierarchicalNSW } = hnswlib;
type Graph = InstanceType<typeof HierarchicalNSW>;

const SPACE = { cosine: 'cosine', dot: 'ip', euclidean: 'l2' } as const;
const CHUNK = 1000;
/** Above this share of deleted slots the graph is rebuilt (deleted points still cost traversal time). */
const MAX_DELETED_SHARE = 0.3;

export interface IndexTarget {
  workspaceId: string;
  collectionId: string;
  dimension: number;
  metric: VectorMetric;
}

interface IndexEntry {
  target: IndexTarget;
  graph: Graph;
  version: number;
  labels: Map<string, number>;
  ids: (string | undefined)[];
  metadata: (Metadata | undefined)[];
  live: number;
  deleted: number;
  lastUsed: number;
  /** Catch-ups and searches of one entry run one after another (a graph is not safe to change mid-search). */
  queue: Promise<unknown>;
}

const entries = new Map<string, IndexEntry>();
const builds = new Map<string, Promise<void>>();
const keyOf = (t: IndexTarget) => `${t.workspaceId}\u0000${t.collectionId}`;
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));

/** hnswlib's distance as this service's score (higher is better). */
function toScore(metric: VectorMetric, distance: number): number {
  if (metric === 'euclidean') return -Math.sqrt(Math.max(0, distance));
  return 1 - distance;
}

function serially<T>(entry: IndexEntry, work: () => Promise<T> | T): Promise<T> {
  const next = entry.queue.then(work, work);
  entry.queue = next.catch(() => {});
  return next;
}

function put(entry: IndexEntry, doc: ScannedDocument): void {
  // Without a vector (replaced by text whose external embedding is pending or failed) it is not searchable.
  if (!doc.vector) {
    remove(entry, doc.id);
    return;
  }
  let label = entry.labels.get(doc.id);
  const fresh = label === undefined;
  if (fresh) {
    label = entry.ids.length;
    if (label >= entry.graph.getMaxElements()) entry.graph.resizeIndex(Math.ceil(label * 1.5) + CHUNK);
    entry.labels.set(doc.id, label);
    entry.ids.push(doc.id);
  } else if (entry.metadata[label!] === undefined) {
    entry.deleted--; // a deleted document written again: the update below unmarks its slot
  }
  // An existing label is updated in place (hnswlib unmarks a deleted one).
  entry.graph.addPoint(Array.from(decodeVector(doc.vector)), label!);
  if (fresh || entry.metadata[label!] === undefined) entry.live++;
  entry.metadata[label!] = JSON.parse(doc.metadata) as Metadata;
}

function remove(entry: IndexEntry, id: string): void {
  const label = entry.labels.get(id);
  if (label === undefined || entry.metadata[label] === undefined) return;
  entry.graph.markDelete(label);
  entry.metadata[label] = undefined;
  entry.live--;
  entry.deleted++;
}

/** Applies what changed after the entry's version: tombstones first, then documents (present = live). */
async function catchUp(db: Kysely<DB>, entry: IndexEntry, version: number): Promise<void> {
  const { workspaceId, collectionId } = entry.target;
  for (const id of await tombstonesSince(db, workspaceId, collectionId, entry.version)) remove(entry, id);
  let afterId: string | undefined;
  for (;;) {
    const docs = await scanDocuments(db, workspaceId, collectionId, {
      afterId,
      limit: CHUNK,
      withVectors: true,
      sinceVersion: entry.version,
    });
    for (const doc of docs) put(entry, doc);
    if (docs.length < CHUNK) break;
    afterId = docs[docs.length - 1]!.id;
    await yieldToLoop();
  }
  entry.version = version;
}

async function build(db: Kysely<DB>, target: IndexTarget): Promise<void> {
  const state = await collectionState(db, target.workspaceId, target.collectionId);
  if (!state) return;
  const graph = new HierarchicalNSW(SPACE[target.metric], target.dimension);
  graph.initIndex({
    maxElements: Math.max(CHUNK, Math.ceil(state.document_count * 1.1)),
    m: 16,
    efConstruction: 100,
    randomSeed: 42,
  });
  const entry: IndexEntry = {
    target,
    graph,
    version: 0,
    labels: new Map(),
    ids: [],
    metadata: [],
    live: 0,
    deleted: 0,
    lastUsed: Date.now(),
    queue: Promise.resolve(),
  };
  // Every document read now is at least as new as state.version; later writes come with the next catch-up.
  let afterId: string | undefined;
  for (;;) {
    const docs = await scanDocuments(db, target.workspaceId, target.collectionId, {
      afterId,
      limit: CHUNK,
      withVectors: true,
    });
    for (let i = 0; i < docs.length; i++) {
      put(entry, docs[i]!);
      if (i % 100 === 99) await yieldToLoop(); // the event loop serves requests between slices of the build
    }
    if (docs.length < CHUNK) break;
    afterId = docs[docs.length - 1]!.id;
  }
  entry.version = state.version;
  entries.set(keyOf(target), entry);
  evict(maxVectors);
}

let maxVectors = 1_000_000;

/** Drops the least recently used indexes while the node holds more vectors than allowed. */
function evict(limit: number): void {
  let total = [...entries.values()].reduce((sum, e) => sum + e.ids.length, 0);
  const byAge = [...entries.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [key, entry] of byAge) {
    if (total <= limit || entries.size <= 1) break;
    entries.delete(key);
    total -= entry.ids.length;
  }
}

/** Starts building a collection's index in the background, once per node at a time. */
export function startBuild(db: Kysely<DB>, target: IndexTarget): Promise<void> {
  const key = keyOf(target);
  let running = builds.get(key);
  if (!running) {
    running = build(db, target)
      .catch(() => {}) // a failed build leaves no entry: the next search starts another
      .finally(() => builds.delete(key));
    builds.set(key, running);
  }
  return running;
}

export interface IndexHit {
  id: string;
  score: number;
}

/**
 * Searches a collection's index, caught up to `version` first. Undefined when this node has no index for it
 * yet (a build is started; the caller searches exactly meanwhile). Never fewer than min(topK, matches) hits:
 * a filter is applied during traversal, then with a wider beam, then by scoring every match.
 */
export async function searchIndex(
  db: Kysely<DB>,
  target: IndexTarget,
  version: number,
  query: number[],
  topK: number,
  filter: Filter | undefined,
  limits: { maxVectors: number },
): Promise<IndexHit[] | undefined> {
  maxVectors = limits.maxVectors;
  const entry = entries.get(keyOf(target));
  if (!entry) {
    void startBuild(db, target);
    return undefined;
  }
  entry.lastUsed = Date.now();
  return serially(entry, async () => {
    if (entry.version < version) await catchUp(db, entry, version);
    if (entry.deleted > MAX_DELETED_SHARE * Math.max(entry.ids.length, 1)) {
      entries.delete(keyOf(target)); // rebuilt compact in the background; this search still answers
      void startBuild(db, target);
    }
    return searchEntry(entry, query, topK, metadataMatcher(filter));
  });
}

/** Candidates fetched without the filter at most; a filter that needs more is served by scoring its matches. */
const MAX_OVERFETCH = 1000;
const SAMPLE = 2000;

function searchEntry(
  entry: IndexEntry,
  query: number[],
  topK: number,
  matcher: ((m: Metadata) => boolean) | undefined,
): IndexHit[] {
  const k = Math.min(topK, entry.live);
  if (k === 0) return [];
  const accept = matcher
    ? (label: number) => entry.metadata[label] !== undefined && matcher(entry.metadata[label]!)
    : undefined;
  const run = (n: number, ef: number, filter?: (label: number) => boolean) => {
    entry.graph.setEf(Math.max(ef, n));
    const result = entry.graph.searchKnn(query, n, filter);
    return result.neighbors.map((label, i) => ({
      label,
      score: toScore(entry.target.metric, result.distances[i]!),
    }));
  };
  const toHits = (found: { label: number; score: number }[]) =>
    found.slice(0, k).map(({ label, score }) => ({ id: entry.ids[label]!, score }));
  if (!accept) return toHits(run(k, Math.max(64, 2 * k)));
  // A filtered search over-fetches: the share of documents the filter keeps is estimated on a sample, and
  // about 3/share x k nearest neighbours are fetched without it, then filtered. (hnswlib's filtered
  // traversal alone lost recall: 0.86 at a 10% filter on 100k vectors.)
  const slots = entry.ids.length;
  const stride = Math.max(1, Math.floor(slots / SAMPLE));
  let sampled = 0;
  let kept = 0;
  for (let label = 0; label < slots; label += stride) {
    if (entry.metadata[label] === undefined) continue;
    sampled++;
    if (accept(label)) kept++;
  }
  const share = sampled ? kept / sampled : 0;
  const wanted = share > 0 ? Math.ceil((3 * k) / share) : Number.POSITIVE_INFINITY;
  if (wanted <= MAX_OVERFETCH) {
    // Both the over-fetch and a filtered traversal: the first misses matches far from the query when the
    // filter keeps another region (metadata correlated with position), the second loses recall when the
    // matches are scattered; their union, best first, serves both.
    const n = Math.min(wanted, entry.live);
    const best = new Map<number, number>();
    for (const hit of run(n, n)) if (accept(hit.label)) best.set(hit.label, hit.score);
    for (const hit of run(k, Math.max(128, 4 * k), accept)) best.set(hit.label, hit.score);
    if (best.size >= k) {
      const merged = [...best].map(([label, score]) => ({ label, score })).sort((a, b) => b.score - a.score);
      return toHits(merged);
    }
  }
  // Few documents match (or the over-fetch fell short): find them all and score each exactly.
  const matching: number[] = [];
  for (let label = 0; label < slots; label++) if (accept(label)) matching.push(label);
  return bruteForce(entry, query, k, matching);
}

function bruteForce(entry: IndexEntry, query: number[], k: number, labels: number[]): IndexHit[] {
  const best = new TopK<number>(k);
  const distance = (label: number) => {
    const point = entry.graph.getPoint(label);
    if (entry.target.metric === 'euclidean') {
      let sum = 0;
      for (let i = 0; i < point.length; i++) sum += (point[i]! - query[i]!) ** 2;
      return sum;
    }
    let d = 0;
    let qn = 0;
    let pn = 0;
    for (let i = 0; i < point.length; i++) {
      d += point[i]! * query[i]!;
      qn += query[i]! ** 2;
      pn += point[i]! ** 2;
    }
    if (entry.target.metric === 'dot') return 1 - d;
    return qn && pn ? 1 - d / Math.sqrt(qn * pn) : 1;
  };
  for (const label of labels) best.offer(toScore(entry.target.metric, distance(label)), label);
  return best.items.map(({ score, item }) => ({ id: entry.ids[item]!, score }));
}

/** Whether this node holds an index for the collection (tests and the warm-up consumer). */
export function hasIndex(target: Pick<IndexTarget, 'workspaceId' | 'collectionId'>): boolean {
  return entries.has(keyOf(target as IndexTarget));
}

/** Catches a held index up right away (the warm-up consumer: the next search finds less to read). */
export async function warmIndex(db: Kysely<DB>, workspaceId: string, collectionId: string): Promise<void> {
  const entry = entries.get(`${workspaceId}\u0000${collectionId}`);
  if (!entry) return;
  const state = await collectionState(db, workspaceId, collectionId);
  if (state && entry.version < state.version) await serially(entry, () => catchUp(db, entry, state.version));
}

/** Forgets a collection's index on this node (archive). */
export function dropIndex(workspaceId: string, collectionId: string): void {
  entries.delete(`${workspaceId}\u0000${collectionId}`);
}
