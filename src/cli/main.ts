#!/usr/bin/env node
import 'reflect-metadata';
import { processIo, stopSignalOf } from './io';
import { runCli } from './program';

const io = processIo();
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
