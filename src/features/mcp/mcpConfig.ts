import { defineConfigSection } from '../../di/configSection';
import { z } from 'zod';

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;

const StringMap = z.record(z.string(), z.string());
const STDIO_ONLY = ['args', 'env', 'cwd'] as const;

/**
 * One entry of `mcpServers`: `{command, args?, env?, cwd?}` (stdio) or `{url, headers?}`
 * (Streamable HTTP), the shape other agent tools use, plus toolhost's own keys. `type` is accepted
 * so configs copied from other tools work; `sse` is refused with a hint.
 */
export const McpServerConfigSchema = z
  .strictObject({
    type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional().describe('The transport; inferred from "command" or "url" when absent.'),
    command: z.string().min(1, 'must not be empty').optional().describe('The program to start (stdio transport).'),
    args: z.array(z.string()).optional().describe('Its arguments.'),
    env: StringMap.optional().describe("Environment variables added to toolhost's own for the server process."),
    cwd: z.string().min(1, 'must not be empty').optional().describe('Its working directory; relative paths start at the workspace.'),
    url: z.string().min(1, 'must not be empty').optional().describe('The Streamable HTTP endpoint.'),
    headers: StringMap.optional().describe('HTTP headers sent with every request (e.g. Authorization).'),
    enabled: z.boolean().default(true).describe('false: the server is not started.'),
    deferred: z.boolean().default(false).describe("The server's tools are loaded on demand (select_tools) instead of listed up front."),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(86_400_000)
      .default(DEFAULT_MCP_TIMEOUT_MS)
      .describe('A tool call fails after this long without an answer or a progress notification.'),
    startupTimeoutMs: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .default(DEFAULT_MCP_STARTUP_TIMEOUT_MS)
      .describe('The server fails to start when it has not answered initialize and tools/list within this long.'),
    planMode: z
      .enum(['guard', 'allow'])
      .optional()
      .describe(
        'In plan mode: "allow" lets this server\'s tools run (you vouch that they do not write); "guard" (the default) refuses them, and asks for those the server annotates readOnlyHint.',
      ),
  })
  .superRefine((server, ctx) => {
    if (server.type === 'sse') {
      ctx.addIssue({
        code: 'custom',
        path: ['type'],
        message: 'the SSE transport is not supported; use the server\'s Streamable HTTP endpoint ("type": "http" with "url")',
      });
      return;
    }
    const wantsStdio = server.type === 'stdio' || (server.type === undefined && server.command !== undefined);
    if (server.command === undefined && server.url === undefined) {
      ctx.addIssue({ code: 'custom', message: 'needs "command" (a stdio server) or "url" (a Streamable HTTP server)' });
      return;
    }
    if (server.command !== undefined && server.url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'give either "command" (stdio) or "url" (Streamable HTTP), not both' });
      return;
    }
    if (wantsStdio) {
      if (server.command === undefined) ctx.addIssue({ code: 'custom', path: ['command'], message: 'the "stdio" transport needs "command"' });
      if (server.headers !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['headers'], message: 'only applies to "url" servers; pass values to a stdio server with "env"' });
      }
      return;
    }
    if (server.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `the "${server.type}" transport needs "url"` });
      return;
    }
    for (const key of STDIO_ONLY) {
      if (server[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'only applies to "command" (stdio) servers' });
    }
    // A ${VAR} reference is checked when it is expanded, at connection time.
    if (!server.url.includes('${')) {
      let protocol = '';
      try {
        protocol = new URL(server.url).protocol;
      } catch {
        // reported below
      }
      if (protocol !== 'http:' && protocol !== 'https:') ctx.addIssue({ code: 'custom', path: ['url'], message: 'must be an http:// or https:// URL' });
    }
  });

/** `mcpServers`: server name → server. A name needs a letter or digit (it becomes part of tool names). */
export const McpServersConfigSchema = z.record(z.string(), McpServerConfigSchema).superRefine((servers, ctx) => {
  for (const name of Object.keys(servers)) {
    if (!/[A-Za-z0-9]/.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'an MCP server name needs a letter or digit (it becomes part of its tool names)' });
    }
  }
});

export const mcpServersConfig = defineConfigSection(
  'mcpServers',
  McpServersConfigSchema.default({}).describe('MCP servers whose tools the agents use, by name.'),
);

export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type McpServerConfigInput = z.input<typeof McpServerConfigSchema>;
export type McpServersConfig = z.output<typeof McpServersConfigSchema>;

export type McpTransportKind = 'stdio' | 'http';

/** Which transport a validated server entry uses. */
export function mcpTransportKind(server: McpServerConfig): McpTransportKind {
  return server.command !== undefined ? 'stdio' : 'http';
}
