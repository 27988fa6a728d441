// The built-in embedder: offline and deterministic, and lexical. Words, word pairs and character n-grams
// of each word are hashed (FNV-1a) into the collection's dimension with a hashed sign, then L2-normalized.
// Texts that share words or word fragments score close; synonyms without shared letters do not: it is a
// keyword matcher in vector form, not a language model (quality: test/vector-embedder-quality.test.ts).

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from has have how i in is it its my of on or so that the this to was what when where which who why will with you your'.split(
    ' ',
  ),
);

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function words(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((w) => !STOPWORDS.has(w));
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  // The lowest bit picks the sign, so unrelated features cancel out on average instead of piling up.
  vector[(hash >>> 1) % vector.length]! += hash & 1 ? weight : -weight;
}

export function builtinEmbedding(text: string, dimension: number): Float32Array {
  const vector = new Float32Array(dimension);
  const tokens = words(text);
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!;
    add(vector, `w:${word}`, 1);
    if (i + 1 < tokens.length) add(vector, `b:${word} ${tokens[i + 1]}`, 0.5);
    const padded = `<${word}>`;
    // Character 3- and 4-grams: an inflected form (invoice, invoices, invoicing) shares most of them.
    for (const n of [3, 4]) {
      for (let j = 0; j + n <= padded.length; j++) add(vector, `c${n}:${padded.slice(j, j + n)}`, 0.25);
    }
  }
  let sum = 0;
  for (let i = 0; i < dimension; i++) sum += vector[i]! * vector[i]!;
  const length = Math.sqrt(sum);
  if (length > 0) for (let i = 0; i < dimension; i++) vector[i]! /= length;
  return vector;
}
