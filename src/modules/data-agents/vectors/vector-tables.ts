// Row types of the vector collections part (merged into DB through the data_agents module).

export type VectorMetric = 'cosine' | 'dot' | 'euclidean';
export type VectorEmbedder = 'none' | 'builtin' | 'external';
export type VectorDocumentStatus = 'ready' | 'pending' | 'failed';

export interface VectorCollectionsTable {
  workspace_id: string;
  id: string;
  /** Unique in the workspace, archived or not: the path segment of the collection's routes. */
  key: string;
  name: string;
  description: string | null;
  dimension: number;
  metric: VectorMetric;
  embedder: VectorEmbedder;
  status: 'active' | 'archived';
  document_count: number;
  /** Documents waiting for an external embedding, and those whose embedding failed (kept in step by writes). */
  pending_count: number;
  failed_count: number;
  /**
   * Bumped by every write to the collection's documents (upsert, delete, an embedding landing); each
   * document and tombstone carries the version that wrote it. An in-memory index remembers the version it
   * holds and reads only what is newer (vector-index.ts).
   */
  version: number;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface VectorDocumentsTable {
  workspace_id: string;
  collection_id: string;
  /** The caller's document ID. */
  id: string;
  text: string | null;
  /** float32 little-endian, `dimension` values; null while an external embedding is pending or failed. */
  vector: Uint8Array | null;
  /** JSON object: flat strings, numbers, booleans and string arrays. */
  metadata: string;
  status: VectorDocumentStatus;
  embedding_error: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A deleted document's ID and the collection version that deleted it, so indexes catch up incrementally. */
export interface VectorDocumentTombstonesTable {
  workspace_id: string;
  collection_id: string;
  document_id: string;
  version: number;
}

export interface VectorTables {
  vector_collections: VectorCollectionsTable;
  vector_documents: VectorDocumentsTable;
  vector_document_tombstones: VectorDocumentTombstonesTable;
}
