#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports */
// The toolhost command (bundled into dist/cli/toolhost.bundle.js by scripts/build.js). It sits
// above the CLI so it can hand it the library: config `features` that import toolhost get these
// very modules, not a second copy from dist/index.js.
import 'reflect-metadata';
import { processIo, stopSignalOf } from './cli/io';
import { runCli } from './cli/program';

const io = {
  ...processIo(),
  // Required on first use: most runs load no feature module.
  library: {
    toolhost: () => require('./index') as object,
    'toolhost/internals': () => require('./internals') as object,
  },
};
void runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
    // Stopped by a signal, everything was cleaned up: exit now, whatever handle is still open.
    if (stopSignalOf(io.interrupt)) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`toolhost: unexpected error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
