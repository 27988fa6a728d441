// The external embedder: any OpenAI-compatible POST /v1/embeddings endpoint the operator configures
// (WOS_EMBEDDINGS_URL, _MODEL, _API_KEY). Called off every write transaction (by the embedding job, or by a
// search with query text), in batches, each with a timeout and bounded retries. The key is sent as a
// Bearer token and never logged or put in an error.
import type { Config } from '../../../config.ts';
import { fail } from '../../../core/errors.ts';

export class EmbeddingError extends Error {
  constructor(
    message: string,
    /** A retry may succeed (timeout, 429, 5xx); a 4xx or a malformed answer will not. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function externalEmbedderConfigured(config: Config): boolean {
  return Boolean(config.embeddingsUrl && config.embeddingsModel);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function embedBatchOnce(config: Config, texts: string[], dimension: number): Promise<number[][]> {
  let response: Response;
  try {
    response = await fetch(config.embeddingsUrl!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.embeddingsApiKey ? { authorization: `Bearer ${config.embeddingsApiKey}` } : {}),
      },
      body: JSON.stringify({ model: config.embeddingsModel, input: texts, encoding_format: 'float' }),
      signal: AbortSignal.timeout(config.embeddingsTimeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error)?.name === 'TimeoutError';
    throw new EmbeddingError(
      timedOut ? 'the embeddings endpoint timed out' : 'the embeddings endpoint is unreachable',
      true,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    const retryable = response.status === 429 || response.status >= 500;
    throw new EmbeddingError(`the embeddings endpoint answered HTTP ${response.status}`, retryable);
  }
  const body = (await response.json().catch(() => undefined)) as
    | { data?: { index?: number; embedding?: unknown }[] }
    | undefined;
  const data = body?.data;
  if (!Array.isArray(data) || data.length !== texts.length) {
    throw new EmbeddingError('the embeddings endpoint answered without one embedding per input', false);
  }
  const out: number[][] = new Array(texts.length);
  for (const [position, item] of data.entries()) {
    const index = typeof item.index === 'number' ? item.index : position;
    const embedding = item.embedding;
    if (
      !Array.isArray(embedding) ||
      embedding.length !== dimension ||
      !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw new EmbeddingError(
        `the embeddings endpoint answered a vector that is not ${dimension} finite numbers (the collection's dimension)`,
        false,
      );
    }
    out[index] = embedding;
  }
  return out;
}

/** Embeds texts in batches of WOS_EMBEDDINGS_BATCH_SIZE, retrying a batch up to 3 times on transient errors. */
export async function embedExternal(config: Config, texts: string[], dimension: number): Promise<number[][]> {
  if (!externalEmbedderConfigured(config)) {
    throw new EmbeddingError(
      'no embeddings endpoint is configured (WOS_EMBEDDINGS_URL, WOS_EMBEDDINGS_MODEL)',
      false,
    );
  }
  const out: number[][] = [];
  for (let start = 0; start < texts.length; start += config.embeddingsBatchSize) {
    const batch = texts.slice(start, start + config.embeddingsBatchSize);
    for (let attempt = 1; ; attempt++) {
      try {
        out.push(...(await embedBatchOnce(config, batch, dimension)));
        break;
      } catch (error) {
        if (!(error instanceof EmbeddingError) || !error.retryable || attempt >= 3) throw error;
        await sleep(200 * 4 ** (attempt - 1));
      }
    }
  }
  return out;
}

/** For a search's query text: the endpoint's failure as a catalogue error (503, retryable). */
export async function embedQueryExternal(config: Config, text: string, dimension: number): Promise<number[]> {
  try {
    return (await embedExternal(config, [text], dimension))[0]!;
  } catch (error) {
    throw fail('upstream_unavailable', {
      message: `The query text could not be embedded: ${(error as Error).message}. Retry, or send a vector.`,
    });
  }
}
