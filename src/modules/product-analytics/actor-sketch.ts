// Unique actors of an object and UTC day as a HyperLogLog sketch (Flajolet et al. 2007), so that the actors
// of a 30-day window are the union of 31 small values instead of a count(distinct) over every actor row.
// Up to SPARSE_LIMIT actors a sketch is the sorted list of their 32-bit hashes (exact but for hash
// collisions); beyond it, 4,096 one-byte registers (standard error 1.04 / sqrt(4096) = 1.6%). No npm
// package keeps a sparse form and a stable binary encoding on Node 20 (hyperloglog, hll: unmaintained).
import { hash } from 'node:crypto';

const P = 12;
const M = 1 << P;
const SPARSE_LIMIT = 512;
const SPARSE = 0;
const DENSE = 1;

type Dense = { kind: 'dense'; registers: Uint8Array };
export type ActorSketch = { kind: 'sparse'; hashes: Set<number> } | Dense;

/** The 32-bit hash of an actor (the first four bytes of its SHA-1: uniform, stable across releases). */
export function actorHash(actor: string): number {
  return Buffer.from(hash('sha1', actor, 'hex').slice(0, 8), 'hex').readUInt32BE(0);
}

export const emptySketch = (): ActorSketch => ({ kind: 'sparse', hashes: new Set() });

function setRegister(registers: Uint8Array, value: number): void {
  const index = value >>> (32 - P);
  const rest = value & ((1 << (32 - P)) - 1);
  // Position of the first 1 bit in the remaining 20 bits (21 when they are all zero).
  const rank = rest === 0 ? 32 - P + 1 : Math.clz32(rest) - P + 1;
  if (registers[index]! < rank) registers[index] = rank;
}

function densify(hashes: Iterable<number>): Dense {
  const registers = new Uint8Array(M);
  for (const value of hashes) setRegister(registers, value);
  return { kind: 'dense', registers };
}

/** Adds actor hashes to a sketch, in place when it can; returns the sketch to keep. */
export function addHashes(sketch: ActorSketch, hashes: Iterable<number>): ActorSketch {
  if (sketch.kind === 'dense') {
    for (const value of hashes) setRegister(sketch.registers, value);
    return sketch;
  }
  for (const value of hashes) sketch.hashes.add(value);
  return sketch.hashes.size > SPARSE_LIMIT ? densify(sketch.hashes) : sketch;
}

const HIGH = 0x80808080;
const scratch = new Uint8Array(M);
const scratchWords = new Uint32Array(scratch.buffer);

/**
 * target[i] = max(target[i], source[i]) over the M registers. A register holds a rank of at most 21 (under
 * 0x80), so four compare at once in a 32-bit word: per byte, the high bit of (a | 0x80) - b is set when
 * a >= b, and no byte borrows from the next (a page's 775 dense sketches merge in ~1 ms instead of ~7).
 */
function maxRegisters(target: Uint8Array, source: Uint8Array): void {
  if (target.byteOffset % 4 !== 0) {
    for (let i = 0; i < M; i++) if (target[i]! < source[i]!) target[i] = source[i]!;
    return;
  }
  scratch.set(source.subarray(0, M));
  const words = new Uint32Array(target.buffer, target.byteOffset, M / 4);
  for (let i = 0; i < M / 4; i++) {
    const a = words[i]!;
    const b = scratchWords[i]!;
    const mask = ((((a | HIGH) - b) & HIGH) >>> 7) * 0xff;
    words[i] = (a & mask) | (b & ~mask);
  }
}

/** The union of two sketches: `into`, grown in place where it can be. */
export function mergeSketch(into: ActorSketch, other: ActorSketch): ActorSketch {
  if (other.kind === 'sparse') return addHashes(into, other.hashes);
  const target = into.kind === 'dense' ? into.registers : (densify(into.hashes) as Dense).registers;
  maxRegisters(target, other.registers);
  return { kind: 'dense', registers: target };
}

// 2^-r for every rank a register can hold (0..21): the estimate sums one per register.
const INVERSE_POWERS = Float64Array.from({ length: 32 - P + 2 }, (_, r) => 2 ** -r);

/** Estimated distinct actors: exact while sparse; HyperLogLog with linear counting for small ranges. */
export function estimate(sketch: ActorSketch): number {
  if (sketch.kind === 'sparse') return sketch.hashes.size;
  let sum = 0;
  let zeros = 0;
  const registers = sketch.registers;
  for (let i = 0; i < M; i++) {
    const r = registers[i]!;
    sum += INVERSE_POWERS[r]!;
    if (r === 0) zeros++;
  }
  const alpha = 0.7213 / (1 + 1.079 / M);
  const raw = (alpha * M * M) / sum;
  if (raw <= 2.5 * M && zeros > 0) return Math.round(M * Math.log(M / zeros));
  return Math.round(raw);
}

/** mergeSketch with a stored sketch, read in place (a page's union reads hundreds of them). */
export function mergeEncoded(into: ActorSketch, data: Uint8Array): ActorSketch {
  if (data[0] === DENSE) {
    const target = into.kind === 'dense' ? into.registers : densify(into.hashes).registers;
    maxRegisters(target, data.subarray(1, 1 + M));
    return { kind: 'dense', registers: target };
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const hashes: number[] = [];
  for (let offset = 1; offset + 4 <= data.byteLength; offset += 4) hashes.push(view.getUint32(offset));
  return addHashes(into, hashes);
}

/** Binary form stored in app_event_actor_sketches.sketch: a kind byte, then hashes (uint32 BE) or registers. */
export function encodeSketch(sketch: ActorSketch): Buffer {
  if (sketch.kind === 'dense') return Buffer.concat([Buffer.from([DENSE]), sketch.registers]);
  const sorted = [...sketch.hashes].sort((a, b) => a - b);
  const out = Buffer.alloc(1 + 4 * sorted.length);
  out[0] = SPARSE;
  for (let i = 0; i < sorted.length; i++) out.writeUInt32BE(sorted[i]!, 1 + 4 * i);
  return out;
}

export function decodeSketch(data: Uint8Array): ActorSketch {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes[0] === DENSE) return { kind: 'dense', registers: new Uint8Array(bytes.subarray(1, 1 + M)) };
  const hashes = new Set<number>();
  for (let offset = 1; offset + 4 <= bytes.length; offset += 4) hashes.add(bytes.readUInt32BE(offset));
  return { kind: 'sparse', hashes };
}
