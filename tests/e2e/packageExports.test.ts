import { spawnSync } from 'node:child_process';
import * as nodePath from 'node:path';

// The built package root, as a user's `require('toolhost')` sees it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require(nodePath.resolve(__dirname, '../../dist/index.js')) as Record<string, unknown>;

test('the package root exports the public API', () => {
  const expected = [
    'createApp',
    'App',
    'Agent',
    'Feature',
    'defineFeature',
    'registerAgentToolService',
    'createServiceId',
    'toInputJsonSchema',
    'renderPrompt',
    'ToolAccesses',
    'conflict',
    'resolvePathAccessPath',
    'resolvePathAccess',
    'PathSecurityError',
    'ToolInputDisplaySchema',
    'parseRule',
    'matchCommandRule',
    'matchPathRule',
    'isToolActive',
    'findInactiveToolPatterns',
    'IConfigService',
    'IAgentToolRegistryService',
    'IAgentToolActivationService',
    'IBuiltinToolAssemblyService',
    'IAgentRuntimeService',
    'IAgentWorkspaceService',
    'IAgentProfileService',
    'IAgentToolPolicyService',
    'createLocalRuntime',
    'builtinFeatures',
    'createOsToolsFeature',
    'createEditToolFeature',
    'createTaskToolsFeature',
    'IReadTool',
    'readConfig',
    'IAgentFileStateService',
    'writeFileAtomic',
    'McpAgentServer',
    'McpServeInteractions',
    'watchConfigFile',
    'qualifyMcpToolName',
    'IMcpConnectionManager',
    'IAgentMcpService',
    'createMcpFeature',
    'defineConfigSection',
  ];
  expect(expected.filter((name) => pkg[name] === undefined)).toEqual([]);
  expect(typeof pkg.createApp).toBe('function');
  expect((pkg.qualifyMcpToolName as (s: string, t: string) => string)('git hub', 'create.issue')).toBe('mcp__git_hub__create_issue');
});

test('each subpath export resolves in the built package by name; deep imports are refused', () => {
  const script = [
    "const subpaths = { 'toolhost/internals': 'ToolScheduler', 'toolhost/tools/os': 'readTool', 'toolhost/tools/edit': 'editTool',",
    "  'toolhost/tools/task': 'AgentTaskService', 'toolhost/tools/selectTools': 'selectToolsTool', 'toolhost/features/mcp': 'toMcpTool' };",
    'const out = {};',
    'for (const [subpath, name] of Object.entries(subpaths)) out[subpath] = typeof require(subpath)[name];',
    "try { require('toolhost/dist/index.js'); out.deep = 'loaded'; } catch (e) { out.deep = e.code; }",
    'console.log(JSON.stringify(out));',
  ].join('\n');
  // The package resolves itself by name (Node's self-reference through "exports").
  const run = spawnSync(process.execPath, ['-e', script], { cwd: nodePath.resolve(__dirname, '../..'), encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({
    'toolhost/internals': 'function',
    'toolhost/tools/os': 'object',
    'toolhost/tools/edit': 'object',
    'toolhost/tools/task': 'function',
    'toolhost/tools/selectTools': 'object',
    'toolhost/features/mcp': 'function',
    deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
  });
});

test('an App built from the package lists Read, Write and Edit', async () => {
  const { createApp } = pkg as { createApp: () => { createAgent(o: { cwd: string }): { registry: { list(): { tool: { name: string } }[] } }; dispose(): Promise<void> } };
  const app = createApp();
  const agent = app.createAgent({ cwd: __dirname });
  expect(agent.registry.list().map((r) => r.tool.name)).toEqual(expect.arrayContaining(['Read', 'Write', 'Edit']));
  await app.dispose();
});

test('loading the package does not load the MCP SDK (it is required on first use)', () => {
  const loaded = Object.keys(require.cache).filter((file) => file.includes(`${nodePath.sep}@modelcontextprotocol${nodePath.sep}sdk${nodePath.sep}`));
  expect(loaded).toEqual([]);
});
