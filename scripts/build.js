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
if (fs.existsSync(bin)) fs.chmodSync(bin, 0o755);
