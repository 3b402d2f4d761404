import { Command } from 'commander';
import { addWorkspaceOptions, type WorkspaceFlags } from '../commonOptions';
import { openAgentSession } from '../agentSession';
import type { CliIo } from '../io';
import { formatTable, summaryLine } from '../table';

interface ToolsFlags extends WorkspaceFlags {
  readonly json?: boolean;
  readonly all?: boolean;
}

export function toolsCommand(io: CliIo): Command {
  const command = new Command('tools')
    .description("print the agent's active tools")
    .option('--json', 'print only a JSON array of {name, description, parameters, source, disclosure}, sorted by name')
    .option('--all', 'also list builtin tools that are not active, with the reason');
  addWorkspaceOptions(command);
  command.action(async (flags: ToolsFlags) => {
    const session = openAgentSession(flags, io);
    try {
      await session.whenMcpSettled();
      const tools = session.agent.registry.list();
      if (flags.json) {
        const json = tools.map((r) => ({
          name: r.tool.name,
          description: r.tool.description,
          parameters: r.tool.parameters,
          source: r.source,
          disclosure: r.disclosure,
        }));
        io.stdout.write(JSON.stringify(json, null, 2) + '\n');
        return;
      }
      const rows = tools.map((r) => [r.tool.name, r.source, r.disclosure, summaryLine(r.tool.description, 90)]);
      if (flags.all) {
        for (const status of session.agent.activation.status()) {
          if (status.state !== 'active') rows.push([status.name, 'builtin', `(${status.state})`, status.reason ?? '']);
        }
        rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
      }
      io.stdout.write(formatTable(['NAME', 'SOURCE', 'DISCLOSURE', 'DESCRIPTION'], rows));
      io.stdout.write(`\n${tools.length} active tool${tools.length === 1 ? '' : 's'} in ${session.workspace.cwd}` +
        `${session.workspace.configFile ? ` (config: ${session.workspace.configFile})` : ''}.\n`);
    } finally {
      await session.dispose();
    }
  });
  return command;
}
