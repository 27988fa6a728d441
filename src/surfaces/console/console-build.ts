// The console (src/console), bundled in memory by esbuild once per process: `npm start` serves it with no
// build step. `wos serve` starts the build at start-up; an app that never serves /console (most test apps)
// never builds it. Asset names carry a content hash, so they are cached as immutable.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface ConsoleAsset {
  contents: Uint8Array;
  contentType: string;
  etag: string;
}

export interface ConsoleBuild {
  /** By file name, e.g. app-5MXQ2Z3B.js. */
  assets: Map<string, ConsoleAsset>;
  /** The files the page loads first (its script and stylesheet). */
  entry: { script: string; style: string };
  html: string;
}

const ENTRY = fileURLToPath(new URL('../../console/main.tsx', import.meta.url));
const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

const page = (entry: ConsoleBuild['entry']) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wos console</title>
<link rel="stylesheet" href="/console/assets/${entry.style}">
<script type="module" src="/console/assets/${entry.script}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the console&hellip;</p></div>
<noscript>The console needs JavaScript.</noscript>
</body>
</html>`;

async function bundle(): Promise<ConsoleBuild> {
  const result = await build({
    entryPoints: { app: ENTRY },
    bundle: true,
    write: false,
    outdir: '/console-assets',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = new Map<string, ConsoleAsset>();
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    const contentType = TYPES[path.extname(name)];
    if (!contentType) continue;
    const etag = `"${createHash('sha256').update(file.contents).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { contents: file.contents, contentType, etag });
  }
  const names = [...assets.keys()];
  const entry = {
    script: names.find((n) => n.startsWith('app-') && n.endsWith('.js'))!,
    style: names.find((n) => n.startsWith('app-') && n.endsWith('.css'))!,
  };
  return { assets, entry, html: page(entry) };
}

let built: Promise<ConsoleBuild> | undefined;

/** The console's build, made once per process (a failed build is retried by the next call). */
export function buildConsole(): Promise<ConsoleBuild> {
  built ??= bundle().catch((error) => {
    built = undefined;
    throw error;
  });
  return built;
}

/** Bytes of JavaScript and CSS the first load of /console fetches, raw and gzipped (npm run bench). */
export async function consoleFirstLoad(): Promise<{ raw: number; gzip: number; files: string[] }> {
  const { assets, entry } = await buildConsole();
  const files = [entry.script, entry.style];
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const contents = assets.get(file)!.contents;
    raw += contents.length;
    gzip += gzipSync(contents, { level: 9 }).length;
  }
  return { raw, gzip, files };
}
