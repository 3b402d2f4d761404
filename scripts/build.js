#!/usr/bin/env node
// Compiles TypeScript and copies the tools' .md description templates next to their classes.
//   node scripts/build.js                 src/ → dist/ (the package)
//   node scripts/build.js --bench         src/ and bench/ → .bench-out/
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const bench = process.argv.includes('--bench');
const outDir = path.join(root, bench ? '.bench-out' : 'dist');
const srcOut = bench ? path.join(outDir, 'src') : outDir;

fs.rmSync(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, bench ? 'tsconfig.bench.json' : 'tsconfig.build.json')], {
  stdio: 'inherit',
});

function copyAssets(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(from);
    else if (entry.name.endsWith('.md')) {
      const to = path.join(srcOut, path.relative(path.join(root, 'src'), from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}
copyAssets(path.join(root, 'src'));
const bin = path.join(srcOut, 'cli', 'main.js');
if (!bench) bundleCli(path.join(srcOut, 'bin.js'), bin);

/**
 * The CLI as one CommonJS file: loading inversify's ES-module build through require and a few
 * hundred small modules costs most of the start-up; bundled, it loads in a fraction. The library
 * (dist/index.js and the rest) stays as tsc wrote it. Bundled from tsc's output, so decorators are
 * already compiled. Each module's `__dirname` keeps pointing at its own folder in dist/, where its
 * `.md` templates are. The MCP SDK is bundled too (esbuild keeps a require inside a function
 * lazy, so commands without MCP do not initialise it; bundled, it shares the code cache);
 * @vscode/ripgrep (which finds its binary from its own folder) stays outside, and so do sharp (an
 * optional dependency with a native binary, required on first use), unpdf (the PDF worker
 * thread requires it by the path the main thread resolves, as the FetchURL extractor's worker
 * does linkedom, @mozilla/readability and the turndown modules), and ioredis and bullmq (optional,
 * required only when scale.redis.url is set). The entry is dist/bin.js
 * (src/bin.ts), which also hands the CLI the library for configured features.
 * dist/cli/main.js (the package's bin) is scripts/cliLauncher.js, which runs the bundle with a V8
 * code cache. TOOLHOST_BUNDLE_NO_MINIFY=1 keeps names readable for profiling.
 */
function bundleCli(entry, bin) {
  const esbuild = require('esbuild');
  const cliDir = path.dirname(bin);
  const distDir = srcOut;
  const keepDirname = {
    name: 'keep-dirname',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(distDir + path.sep)) return undefined;
        const contents = fs.readFileSync(args.path, 'utf8');
        if (!contents.includes('__dirname')) return undefined;
        const relative = JSON.stringify(path.relative(cliDir, path.dirname(args.path)).split(path.sep).join('/'));
        return { contents: contents.replace(/\b__dirname\b/g, `require("node:path").join(__dirname, ${relative})`), loader: 'js' };
      });
    },
  };
  const bundled = path.join(cliDir, 'toolhost.bundle.js');
  // esbuild runs plugins only in its asynchronous build.
  return esbuild
    .build({
      entryPoints: [entry],
      outfile: bundled,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // The FetchURL extractor's worker requires these by the paths the main thread resolves.
      external: ['@vscode/ripgrep', 'sharp', 'unpdf', 'ioredis', 'bullmq', 'linkedom', '@mozilla/readability', 'turndown', 'turndown-plugin-gfm'],
      plugins: [keepDirname],
      minify: process.env.TOOLHOST_BUNDLE_NO_MINIFY !== "1",
      logLevel: 'warning',
    })
    .then(() => {
      // The command is a small launcher that runs the bundle with a V8 code cache.
      fs.copyFileSync(path.join(__dirname, 'cliLauncher.js'), bin);
      fs.chmodSync(bin, 0o755);
    })
    .catch((error) => {
      console.error(`Bundling the CLI failed: ${error.message}`);
      process.exitCode = 1;
    });
}
