import * as fsp from 'node:fs/promises';
import type { RuntimeCapability } from '../../di/toolContribution';
import type { Runtime } from './runtime';

/** The local machine: node:fs and child processes. `capabilities` can narrow it (tests, sandboxes). */
export function createLocalRuntime(capabilities: readonly RuntimeCapability[] = ['fs', 'process']): Runtime {
  return {
    name: 'local',
    capabilities: [...capabilities],
    fs: capabilities.includes('fs') ? fsp : undefined,
  };
}
