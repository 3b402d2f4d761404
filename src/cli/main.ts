#!/usr/bin/env node
import 'reflect-metadata';
import { processIo } from './io';
import { runCli } from './program';

void runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`toolhost: unexpected error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
