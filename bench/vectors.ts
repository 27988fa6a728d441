// `npm run bench:vectors` (and a part of `npm run bench`): vector collections (issue 14, item 5). 100,000
// documents of dimension 384 upserted through the service (in process, app.inject: routing, validation, the
// pipeline and the database, no sockets), the HNSW index built from the database, then searches through the
// service: latency percentiles and recall@10 against exact search. SQLite by default; PostgreSQL when
// BENCH_DATABASE_URL is set. The data is clustered like real embeddings (random unit vectors are the worst case
// for any graph index and not what embedding models produce); queries are perturbed documents.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { searchIndex, startBuild } from '../src/modules/data-agents/vectors/vector-index.ts';
import type { Filter } from '../src/modules/data-agents/vectors/vector-schemas.ts';
import { collectionState } from '../src/modules/data-agents/vectors/vector-store.ts';
import { benchWorkspace, injector, startInProcess } from './bench-service.ts';

const DOCS = Number(process.env.BENCH_VECTOR_DOCS ?? 100_000);
const DIM = Number(process.env.BENCH_VECTOR_DIM ?? 384);
const QUERIES = Number(process.env.BENCH_VECTOR_QUERIES ?? 200);
/** Documents per upsert call: 200 x 384 numbers at 5 decimals is about 0.75 MB, under the 1 MiB body limit. */
const BATCH = 200;
const CLUSTERS = 1000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? 0;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function gaussian(next: () => number): number {
  const u = Math.max(next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
}

function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export async function vectorsBench(): Promise<void> {
  const next = seeded(384);
  const centres = Array.from({ length: CLUSTERS }, () =>
    unit(Float32Array.from({ length: DIM }, () => gaussian(next))),
  );
  const around = (centre: Float32Array, spread: number) =>
    unit(Float32Array.from(centre, (x) => x + (spread * gaussian(next)) / Math.sqrt(DIM)));
  // Sent rounded to 5 decimals (a short JSON body); exact search is computed on the same values.
  const data = Array.from({ length: DOCS }, (_, i) =>
    Array.from(around(centres[i % CLUSTERS]!, 0.8), (x) => Math.round(x * 1e5) / 1e5),
  );

  // Independent of the clusters: a filter keeps documents everywhere (cluster is the correlated field).
  const shards = Array.from({ length: DOCS }, () => Math.floor(next() * 10));
  const { service, config, db, dialect, close } = await startInProcess('vectors', { WOS_WORKER: 'off' });
  try {
    const workspace = await benchWorkspace(db, 'Vectors bench');
    const request = injector(service, workspace.key);
    const created = await request('POST', '/v1/vector-collections', {
      key: 'bench',
      name: 'Bench',
      dimension: DIM,
    });
    const collectionId = created.vector_collection.id as string;

    process.stdout.write(
      `\nvector collections: ${DOCS.toLocaleString('en-US')} documents of dimension ${DIM}, ${dialect}, load average ${os.loadavg()[0]!.toFixed(1)}\n`,
    );
    const upsertStarted = performance.now();
    const upsertTimes: number[] = [];
    for (let start = 0; start < DOCS; start += BATCH) {
      const documents = data.slice(start, start + BATCH).map((v, j) => ({
        id: `doc-${start + j}`,
        vector: v,
        metadata: { cluster: (start + j) % CLUSTERS, shard: shards[start + j]! },
      }));
      const t = performance.now();
      await request('POST', '/v1/vector-collections/bench/documents', { documents });
      upsertTimes.push(performance.now() - t);
    }
    const upsertSeconds = (performance.now() - upsertStarted) / 1000;
    upsertTimes.sort((a, b) => a - b);
    process.stdout.write(
      `upsert: ${(DOCS / upsertSeconds).toFixed(0)} documents/s (calls of ${BATCH}: p50 ${percentile(upsertTimes, 0.5).toFixed(0)} ms, p95 ${percentile(upsertTimes, 0.95).toFixed(0)} ms)\n`,
    );

    const queries = Array.from({ length: QUERIES }, () =>
      around(Float32Array.from(data[Math.floor(next() * DOCS)]!), 0.5),
    );
    const search = (q: Float32Array, extra: Record<string, unknown> = {}) =>
      request('POST', '/v1/vector-collections/bench/search', { vector: Array.from(q), top_k: 10, ...extra });

    // The index is built from the database (what the first search on a node, or its start, sets off), alone.
    const target = { workspaceId: workspace.id, collectionId, dimension: DIM, metric: 'cosine' as const };
    const memoryBefore = process.memoryUsage().rss;
    const buildStarted = performance.now();
    await startBuild(service.deps.database.heavy, target);
    const buildSeconds = (performance.now() - buildStarted) / 1000;
    const memoryAfter = process.memoryUsage().rss;
    process.stdout.write(
      `index build from the database: ${buildSeconds.toFixed(1)} s; the graph's own size ${mb(DOCS * (DIM * 4 + 2 * 16 * 4 + 12))} (hnswlib level 0: vectors, M=16 links, labels), resident memory +${mb(memoryAfter - memoryBefore)} (${mb(memoryAfter)} in all, the process's garbage collection included)\n`,
    );
    // The in-memory part alone (HNSW traversal, ids), without the service around it.
    const { version } = (await collectionState(db, workspace.id, collectionId))!;
    const inIndex: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await searchIndex(service.deps.database.heavy, target, version, Array.from(q), 10, undefined, {
        maxVectors: config.vectorIndexMaxVectors,
      });
      inIndex.push(performance.now() - t);
    }
    inIndex.sort((a, b) => a - b);
    process.stdout.write(
      `index search alone, top 10: p50 ${percentile(inIndex, 0.5).toFixed(2)} ms, p95 ${percentile(inIndex, 0.95).toFixed(2)} ms\n`,
    );

    // The floor of any search through the service here: a collection of 10 documents, searched exactly (the
    // same pipeline, heavy-read slot and connections, no index).
    await request('POST', '/v1/vector-collections', { key: 'tiny', name: 'Tiny', dimension: DIM });
    await request('POST', '/v1/vector-collections/tiny/documents', {
      documents: data.slice(0, 10).map((v, i) => ({ id: `t-${i}`, vector: v })),
    });
    const floor: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await request('POST', '/v1/vector-collections/tiny/search', { vector: Array.from(q), top_k: 10 });
      floor.push(performance.now() - t);
    }
    floor.sort((a, b) => a - b);
    process.stdout.write(
      `search of a 10-document collection (the service's floor for a search): p50 ${percentile(floor, 0.5).toFixed(1)} ms, p95 ${percentile(floor, 0.95).toFixed(1)} ms\n`,
    );

    const exactTop = (q: Float32Array, keep: (i: number) => boolean = () => true) => {
      const scores: { i: number; s: number }[] = [];
      for (let i = 0; i < DOCS; i++) {
        if (!keep(i)) continue;
        const v = data[i]!;
        let d = 0;
        for (let j = 0; j < DIM; j++) d += q[j]! * v[j]!;
        scores.push({ i, s: d });
      }
      return new Set(
        scores
          .sort((a, b) => b.s - a.s)
          .slice(0, 10)
          .map((x) => `doc-${x.i}`),
      );
    };
    for (const [label, extra, keep] of [
      ['unfiltered', {}, undefined],
      ['filter shard = 3 (10% match, anywhere)', { filter: { shard: 3 } }, (i: number) => shards[i] === 3],
      [
        'filter cluster in 10 clusters (1% match, in other regions)',
        { filter: { cluster: { in: [3, 103, 203, 303, 403, 503, 603, 703, 803, 903] } } },
        (i: number) => (i % CLUSTERS) % 100 === 3,
      ],
    ] as const) {
      // Exact answers first, so their allocations (and garbage collection) stay out of the timed searches.
      const truths = queries.map((q) => exactTop(q, keep));
      const times: number[] = [];
      const answers: { mode: string; results: { id: string }[] }[] = [];
      for (const q of queries) {
        const t = performance.now();
        answers.push(await search(q, extra));
        times.push(performance.now() - t);
      }
      const inIndexFiltered: number[] = [];
      for (const q of queries) {
        const t = performance.now();
        await searchIndex(
          service.deps.database.heavy,
          target,
          version,
          Array.from(q),
          10,
          (extra as { filter?: Filter }).filter,
          {
            maxVectors: config.vectorIndexMaxVectors,
          },
        );
        inIndexFiltered.push(performance.now() - t);
      }
      const approximate = answers.filter((a) => a.mode === 'approximate').length;
      const found = answers.reduce(
        (sum, a, i) => sum + a.results.filter((r) => truths[i]!.has(r.id)).length,
        0,
      );
      times.sort((a, b) => a - b);
      inIndexFiltered.sort((a, b) => a - b);
      process.stdout.write(
        `search top 10, ${label}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms over ${QUERIES} queries (${approximate} approximate; in the index alone p50 ${percentile(inIndexFiltered, 0.5).toFixed(2)} ms, p95 ${percentile(inIndexFiltered, 0.95).toFixed(2)} ms); recall@10 against exact ${(found / (QUERIES * 10)).toFixed(3)}\n`,
      );
    }
  } finally {
    await close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await vectorsBench();
}
