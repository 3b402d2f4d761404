/* eslint-disable @typescript-eslint/no-require-imports */
/**
 * The MCP SDK, required on first use. Loading it costs ~130 ms and ~10 MB (its protocol schemas),
 * and most agents have no MCP server and never serve MCP, so nothing requires it at start-up.
 * Modules import only types from the SDK and take values from here.
 */
type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type StreamableHttpModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type TypesModule = typeof import('@modelcontextprotocol/sdk/types.js');
type AjvValidatorModule = typeof import('@modelcontextprotocol/sdk/validation/ajv');
type ServerModule = typeof import('@modelcontextprotocol/sdk/server/index.js');
type ServerStdioModule = typeof import('@modelcontextprotocol/sdk/server/stdio.js');
type SharedStdioModule = typeof import('@modelcontextprotocol/sdk/shared/stdio.js');

export const mcpSdk = {
  client: (): ClientModule => require('@modelcontextprotocol/sdk/client/index.js') as ClientModule,
  streamableHttp: (): StreamableHttpModule => require('@modelcontextprotocol/sdk/client/streamableHttp.js') as StreamableHttpModule,
  types: (): TypesModule => require('@modelcontextprotocol/sdk/types.js') as TypesModule,
  ajvValidator: (): AjvValidatorModule => require('@modelcontextprotocol/sdk/validation/ajv') as AjvValidatorModule,
  server: (): ServerModule => require('@modelcontextprotocol/sdk/server/index.js') as ServerModule,
  serverStdio: (): ServerStdioModule => require('@modelcontextprotocol/sdk/server/stdio.js') as ServerStdioModule,
  sharedStdio: (): SharedStdioModule => require('@modelcontextprotocol/sdk/shared/stdio.js') as SharedStdioModule,
};
