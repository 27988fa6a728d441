// search_vector_collection's work: exact below the collection's size threshold (or while this node builds
// its index), approximate above it (vector-index.ts). Both filter on metadata and never return fewer than
// top_k hits when that many documents match.
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/tables.ts';
import { metadataMatcher } from './vector-filter.ts';
import { type IndexHit, searchIndex } from './vector-index.ts';
import { decodeVector, scorer, TopK } from './vector-math.ts';
import type { Filter, Metadata } from './vector-schemas.ts';
import { getDocuments, scanDocuments } from './vector-store.ts';
import type { VectorCollectionsTable } from './vector-tables.ts';

export interface SearchHit {
  id: string;
  score: number;
  text: string | null;
  metadata: Metadata;
  vector?: number[];
}

export interface SearchRequest {
  query: number[];
  topK: number;
  filter?: Filter;
  minScore?: number;
  includeVectors: boolean;
}

const CHUNK = 1000;

/** Scores every ready document of the collection, read in chunks. */
async function exactSearch(
  db: Kysely<DB>,
  collection: VectorCollectionsTable,
  request: SearchRequest,
): Promise<SearchHit[]> {
  const score = scorer(collection.metric, request.query);
  const matcher = metadataMatcher(request.filter);
  const best = new TopK<SearchHit>(request.topK);
  let afterId: string | undefined;
  for (;;) {
    const docs = await scanDocuments(db, collection.workspace_id, collection.id, {
      afterId,
      limit: CHUNK,
      withVectors: true,
    });
    for (const doc of docs) {
      const metadata = JSON.parse(doc.metadata) as Metadata;
      if (matcher && !matcher(metadata)) continue;
      const vector = decodeVector(doc.vector!);
      const value = score(vector);
      if (value <= best.worst) continue;
      best.offer(value, {
        id: doc.id,
        score: value,
        text: doc.text,
        metadata,
        ...(request.includeVectors ? { vector: Array.from(vector) } : {}),
      });
    }
    if (docs.length < CHUNK) break;
    afterId = docs[docs.length - 1]!.id;
  }
  return best.items.map((i) => i.item);
}

/** The documents of the index's hits, in the hits' order. */
async function hydrate(
  db: Kysely<DB>,
  collection: VectorCollectionsTable,
  hits: IndexHit[],
  includeVectors: boolean,
): Promise<SearchHit[]> {
  const rows = await getDocuments(
    db,
    collection.workspace_id,
    collection.id,
    hits.map((h) => h.id),
    includeVectors,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return hits.flatMap((hit) => {
    const row = byId.get(hit.id);
    if (!row) return []; // deleted between the index's catch-up and this read
    return [
      {
        id: hit.id,
        score: hit.score,
        text: row.text,
        metadata: JSON.parse(row.metadata) as Metadata,
        ...(includeVectors && row.vector ? { vector: Array.from(decodeVector(row.vector)) } : {}),
      },
    ];
  });
}

export async function searchCollection(
  db: Kysely<DB>,
  collection: VectorCollectionsTable,
  request: SearchRequest,
  limits: { exactThreshold: number; maxVectors: number },
): Promise<{ hits: SearchHit[]; mode: 'exact' | 'approximate' }> {
  // The row was read by this call (requireCollection): its version is what the index must hold.
  const state = { version: Number(collection.version), document_count: Number(collection.document_count) };
  let found: { hits: SearchHit[]; mode: 'exact' | 'approximate' } | undefined;
  if (state.document_count >= limits.exactThreshold) {
    const target = {
      workspaceId: collection.workspace_id,
      collectionId: collection.id,
      dimension: Number(collection.dimension),
      metric: collection.metric,
    };
    const hits = await searchIndex(
      db,
      target,
      state.version,
      request.query,
      request.topK,
      request.filter,
      limits,
    );
    if (hits)
      found = { hits: await hydrate(db, collection, hits, request.includeVectors), mode: 'approximate' };
  }
  found ??= { hits: await exactSearch(db, collection, request), mode: 'exact' };
  const minScore = request.minScore;
  return minScore === undefined ? found : { ...found, hits: found.hits.filter((h) => h.score >= minScore) };
}
