// The service guide's index: this service's own documentation (README.md and docs/**/*.md split into
// passages at their headings, each with a GitHub-style anchor), the error catalogue and the tool
// descriptions with their scopes, in one hybrid index (keywords weighted by rarity, plus the builtin
// lexical embedder). Built once per process, at start, in memory: the documents ship with the service and
// change only with a deploy.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCatalogue } from '../../../core/errors.ts';
import { HybridIndex, type Ranked } from './text-rank.ts';
import { toolCatalogue } from './tool-catalogue.ts';

export interface Passage {
  /** Repository path (docs/modules/vectors.md), src/core/errors.ts, or registry for a tool. */
  source: string;
  /** #heading-slug as GitHub renders it; for an error or a tool, its code or name. */
  anchor: string;
  heading: string;
  text: string;
  tools: string[];
  error_codes: string[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const MAX_PASSAGE = 2400;

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function slug(heading: string, seen: Map<string, number>): string {
  const base = heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
  const n = seen.get(base) ?? 0;
  seen.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}

/** A Markdown file's passages: the text under each heading (fenced code kept, headings inside it ignored). */
export function splitMarkdown(source: string, markdown: string): Omit<Passage, 'tools' | 'error_codes'>[] {
  const passages: Omit<Passage, 'tools' | 'error_codes'>[] = [];
  const seen = new Map<string, number>();
  let heading = path.basename(source);
  let anchor = '';
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = lines.join('\n').trim();
    lines = [];
    if (!text) return;
    // Long sections become several passages under the same anchor.
    for (let start = 0; start < text.length; start += MAX_PASSAGE) {
      passages.push({
        source,
        anchor: anchor ? `#${anchor}` : '',
        heading,
        text: text.slice(start, start + MAX_PASSAGE),
      });
    }
  };
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (match) {
      flush();
      heading = match[2]!.replace(/`/g, '');
      anchor = slug(heading, seen);
      continue;
    }
    lines.push(line);
  }
  flush();
  return passages;
}

async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return markdownFiles(full);
      return Promise.resolve(e.name.endsWith('.md') ? [full] : []);
    }),
  );
  return nested.flat().sort();
}

const identifier = /[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+/g;

async function build(): Promise<HybridIndex<Passage>> {
  const tools = await toolCatalogue();
  const codes = new Set(Object.keys(errorCatalogue));
  const mentions = (text: string) => {
    const found = new Set(text.match(identifier) ?? []);
    return {
      tools: [...found].filter((w) => tools.has(w)).sort(),
      error_codes: [...found].filter((w) => codes.has(w)).sort(),
    };
  };
  const index = new HybridIndex<Passage>({ heading: 2, text: 1, source: 1 });
  const add = (p: Omit<Passage, 'tools' | 'error_codes'>) => {
    const passage = { ...p, ...mentions(`${p.heading}\n${p.text}`) };
    index.add(
      passage,
      { heading: p.heading, text: p.text, source: p.source.replace(/[/.]/g, ' ') },
      `${p.heading}\n${p.heading}\n${p.text}`,
    );
  };
  const files = [path.join(ROOT, 'README.md'), ...(await markdownFiles(path.join(ROOT, 'docs')))];
  for (const file of files) {
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    for (const passage of splitMarkdown(path.relative(ROOT, file).split(path.sep).join('/'), text))
      add(passage);
  }
  for (const [code, entry] of Object.entries(errorCatalogue)) {
    add({
      source: 'src/core/errors.ts',
      anchor: code,
      heading: `Error ${code} (HTTP ${entry.status}${entry.retryable ? ', retryable' : ''})`,
      text: `${code}: ${entry.message} ${entry.description}`,
    });
  }
  for (const op of tools.values()) {
    const route = op.rest ? `${op.rest.method} ${op.rest.path}` : 'MCP only';
    add({
      source: 'registry',
      anchor: op.name,
      heading: `Tool ${op.name}: ${op.summary}`,
      text: `${op.name} (${route}; scopes ${op.scopes.join(', ')}; module ${op.module}). ${op.description}`,
    });
  }
  return index;
}

let built: Promise<HybridIndex<Passage>> | undefined;

/** The process's guide index, built on first use (and at start, see index.ts). */
export function guideIndex(): Promise<HybridIndex<Passage>> {
  built ??= build().catch((error) => {
    built = undefined;
    throw error;
  });
  return built;
}

export type GuideHit = Ranked<Passage>;
