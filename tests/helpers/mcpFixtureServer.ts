import * as nodePath from 'node:path';
import type { McpServerConfigInput } from '../../src/features/mcp/mcpConfig';

export const FIXTURE_SERVER = nodePath.resolve(__dirname, '../fixtures/mcp/fixtureServer.cjs');

/** Options of tests/fixtures/mcp/fixtureServer.cjs. */
export interface FixtureOptions {
  readonly name?: string;
  readonly startDelayMs?: number;
  readonly waitForFile?: string;
  readonly exitAtStart?: number;
  readonly exitAfterMs?: number;
  readonly manyTools?: number;
  readonly onlyMany?: boolean;
  readonly extraTools?: readonly string[];
  readonly oddTools?: boolean;
  readonly backtrackingPatterns?: boolean;
  readonly badSchemas?: boolean;
  readonly endlessPages?: number;
  readonly http?: boolean;
  readonly requireToken?: string;
}

/** A stdio `mcpServers` entry that runs the fixture server with node. */
export function fixtureServer(options: FixtureOptions = {}, extra: Partial<McpServerConfigInput> = {}): McpServerConfigInput {
  return { command: process.execPath, args: [FIXTURE_SERVER, JSON.stringify(options)], ...extra } as McpServerConfigInput;
}
