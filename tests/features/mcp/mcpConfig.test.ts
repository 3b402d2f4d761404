import { ConfigError, parseConfig as parseWith } from '../../../src/services/config/configLoader';
import { type AppConfigInput, configSchemaFor } from '../../../src/scopes/appScope';
import { createMcpFeature } from '../../../src/features/mcp/mcpFeature';

const MCP_ONLY = configSchemaFor([createMcpFeature()]);
/** Parses with the schema of an App that has the mcp feature. */
const parseConfig = (input: unknown) => parseWith(input, 'configuration', MCP_ONLY);

function issues(input: unknown): string[] {
  try {
    parseConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('config mcpServers', () => {
  test('defaults to no servers', () => {
    expect(parseConfig({}).mcpServers).toEqual({});
  });

  test('a stdio server and an HTTP server get their defaults', () => {
    const config = parseConfig({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: 'sub' },
        web: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, deferred: true, timeoutMs: 5000 },
        off: { command: 'x', enabled: false },
        typed: { type: 'http', url: 'http://127.0.0.1:3000/mcp' },
      },
    } satisfies AppConfigInput);
    expect(config.mcpServers).toEqual({
      files: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: 'sub', enabled: true, deferred: false, timeoutMs: 60_000, startupTimeoutMs: 30_000 },
      web: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, enabled: true, deferred: true, timeoutMs: 5000, startupTimeoutMs: 30_000 },
      off: { command: 'x', enabled: false, deferred: false, timeoutMs: 60_000, startupTimeoutMs: 30_000 },
      typed: { type: 'http', url: 'http://127.0.0.1:3000/mcp', enabled: true, deferred: false, timeoutMs: 60_000, startupTimeoutMs: 30_000 },
    });
  });

  test.each<[string, unknown, string[]]>([
    ['neither command nor url', { a: {} }, ['mcpServers.a: needs "command" (a stdio server) or "url" (a Streamable HTTP server)']],
    ['both command and url', { a: { command: 'x', url: 'http://h' } }, ['mcpServers.a.url: give either "command" (stdio) or "url" (Streamable HTTP), not both']],
    ['a URL that is not http(s)', { a: { url: 'ftp://h/x' } }, ['mcpServers.a.url: must be an http:// or https:// URL']],
    ['a URL that does not parse', { a: { url: 'not a url' } }, ['mcpServers.a.url: must be an http:// or https:// URL']],
    ['env on an HTTP server', { a: { url: 'http://h', env: { A: '1' } } }, ['mcpServers.a.env: only applies to "command" (stdio) servers']],
    ['headers on a stdio server', { a: { command: 'x', headers: {} } }, ['mcpServers.a.headers: only applies to "url" servers; pass values to a stdio server with "env"']],
    ['the SSE transport', { a: { type: 'sse', url: 'http://h' } }, ['mcpServers.a.type: the SSE transport is not supported; use the server\'s Streamable HTTP endpoint ("type": "http" with "url")']],
    ['type http without url', { a: { type: 'http', command: 'x' } }, ['mcpServers.a.url: the "http" transport needs "url"']],
    ['a typo', { a: { command: 'x', comand: 'y' } }, ['mcpServers.a.comand: unknown key (did you mean "command"?)']],
    ['a wrong type', { a: { command: 3 } }, ['mcpServers.a.command: expected string, received number']],
    ['a non-positive timeout', { a: { command: 'x', timeoutMs: 0 } }, ['mcpServers.a.timeoutMs: Too small: expected number to be >0']],
    ['args that are not strings', { a: { command: 'x', args: [1] } }, ['mcpServers.a.args[0]: expected string, received number']],
    ['a planMode that is not "guard" or "allow"', { a: { command: 'x', planMode: 'yes' } }, ['mcpServers.a.planMode: Invalid option: expected one of "guard"|"allow"']],
    ['a server name with no letter or digit', { '!!': { command: 'x' } }, ['mcpServers["!!"]: an MCP server name needs a letter or digit (it becomes part of its tool names)']],
  ])('%s is refused with its key path', (_name, servers, expected) => {
    expect(issues({ mcpServers: servers })).toEqual(expected);
  });
});
