// Embeds the pending documents of an external-embedder collection (enqueued by upsert_vector_documents in
// its transaction). The endpoint is called outside any transaction; each batch's results are then written
// in one short transaction that takes a new collection version, so every node's index picks them up.
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/tables.ts';
import type { JobDefinition } from '../../../jobs/types.ts';
import { EmbeddingError, embedExternal } from './external-embedder.ts';
import { encodeVector } from './vector-math.ts';
import {
  adjustCounters,
  collectionState,
  nextVersion,
  pendingDocuments,
  settleEmbedding,
} from './vector-store.ts';

export const EMBED_JOB = 'vectors.embed';
const RETRY_LIMIT = 3;

/** Usage units of embedding: 1 per started 100 texts. */
export const embeddingUnits = (texts: number): number => Math.ceil(texts / 100);

interface EmbedPayload {
  workspace_id: string;
  collection_id: string;
  ids: string[];
}

async function settle(
  db: Kysely<DB>,
  payload: EmbedPayload,
  docs: { id: string; version: number }[],
  outcome: (i: number) => { vector: Buffer } | { error: string },
  now: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const failed = 'error' in outcome(0);
    let settled = 0;
    // The version is taken first (its row lock orders this write among the collection's others).
    const { version } = await nextVersion(
      trx,
      payload.workspace_id,
      payload.collection_id,
      { documents: 0, pending: 0, failed: 0 },
      now,
    );
    for (const [i, doc] of docs.entries()) {
      const done = await settleEmbedding(trx, payload.workspace_id, payload.collection_id, doc, {
        ...outcome(i),
        version,
      });
      if (done) settled++;
    }
    if (settled) {
      await adjustCounters(trx, payload.workspace_id, payload.collection_id, {
        pending: -settled,
        failed: failed ? settled : 0,
      });
    }
  });
}

export const vectorEmbedJob: JobDefinition<EmbedPayload> = {
  name: EMBED_JOB,
  retryLimit: RETRY_LIMIT,
  retryDelaySeconds: 5,
  timeoutSeconds: 300,
  async run(job, env) {
    const { workspace_id: workspaceId, collection_id: collectionId } = job.payload;
    const state = await collectionState(env.db, workspaceId, collectionId);
    if (!state) return;
    const wanted = new Set(job.payload.ids);
    const collection = await env.db
      .selectFrom('vector_collections')
      .select(['dimension'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', collectionId)
      .executeTakeFirstOrThrow();
    const docs = (await pendingDocuments(env.db, workspaceId, collectionId, 10_000)).filter((d) =>
      wanted.has(d.id),
    );
    const batch = env.config.embeddingsBatchSize;
    for (let start = 0; start < docs.length; start += batch) {
      if (job.signal.aborted) throw job.signal.reason;
      const slice = docs.slice(start, start + batch).map((d) => ({ ...d, version: Number(d.version) }));
      const now = env.clock.now().toISOString();
      try {
        const vectors = await embedExternal(
          env.config,
          slice.map((d) => d.text ?? ''),
          collection.dimension,
        );
        await settle(env.db, job.payload, slice, (i) => ({ vector: encodeVector(vectors[i]!) }), now);
      } catch (error) {
        // Transient failures go back to the queue (settled batches are not pending any more); a refusal or
        // the last attempt marks the batch failed, with the reason, so callers see it and can upsert again.
        if (!(error instanceof EmbeddingError)) throw error;
        if (error.retryable && job.attempt <= RETRY_LIMIT) throw error;
        await settle(env.db, job.payload, slice, () => ({ error: error.message }), now);
      }
    }
  },
};
