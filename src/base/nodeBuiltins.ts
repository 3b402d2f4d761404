/* eslint-disable @typescript-eslint/no-require-imports */
/**
 * Node built-ins that only some commands and calls use, required on first use instead of at load.
 * Each brings internal modules of its own (child_process: dgram and the handle-passing machinery;
 * http: six `_http_*` modules; worker_threads, readline, zlib, dns): required together they take
 * 5-7 ms, and loading them lazily saved about 3 ms of `toolhost tools` (whose commander requires
 * child_process anyway; `npm run bench -- startup`). tests/e2e/cliStartupModules.test.ts checks
 * that the library with an App and an agent loads none of them. Node caches a built-in, so a later
 * call is a lookup. Modules import only types from these and take values from here, as
 * features/mcp/sdk.ts does for the MCP SDK.
 */
type ChildProcessModule = typeof import('node:child_process');
type WorkerThreadsModule = typeof import('node:worker_threads');
type HttpModule = typeof import('node:http');
type ZlibModule = typeof import('node:zlib');
type DnsModule = typeof import('node:dns');
type ReadlineModule = typeof import('node:readline');

export const nodeBuiltins = {
  childProcess: (): ChildProcessModule => require('node:child_process') as ChildProcessModule,
  workerThreads: (): WorkerThreadsModule => require('node:worker_threads') as WorkerThreadsModule,
  http: (): HttpModule => require('node:http') as HttpModule,
  zlib: (): ZlibModule => require('node:zlib') as ZlibModule,
  dns: (): DnsModule => require('node:dns') as DnsModule,
  readline: (): ReadlineModule => require('node:readline') as ReadlineModule,
};
