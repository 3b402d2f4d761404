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
    'IAgentToolContribution',
    'createLocalRuntime',
    'builtinFeatures',
    'readTool',
    'writeTool',
    'editTool',
    'IAgentFileStateService',
    'writeFileAtomic',
    'McpAgentServer',
    'McpServeInteractions',
    'toMcpTool',
    'toCallToolResult',
    'watchConfigFile',
    'qualifyMcpToolName',
    'IMcpConnectionManager',
    'IAgentMcpService',
    'createMcpFeature',
    'mapMcpCallResult',
  ];
  expect(expected.filter((name) => pkg[name] === undefined)).toEqual([]);
  expect(typeof pkg.createApp).toBe('function');
  expect((pkg.qualifyMcpToolName as (s: string, t: string) => string)('git hub', 'create.issue')).toBe('mcp__git_hub__create_issue');
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
