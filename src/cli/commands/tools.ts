import { Command, Option } from 'commander';
import { IAgentToolSelectService } from '../../services/toolSelect/toolSelect';
import { MODEL_TOOL_FORMATS, type ModelToolFormat, toModelTools } from '../../tool/modelToolFormats';
import { openAgentSession } from '../agentSession';
import { addWorkspaceOptions, type WorkspaceFlags } from '../commonOptions';
import type { CliIo } from '../io';
import { PrintingPromptInjection } from '../promptInjection';
import { formatTable, summaryLine } from '../table';

interface ToolsFlags extends WorkspaceFlags {
  readonly json?: boolean;
  readonly format?: ModelToolFormat;
  readonly all?: boolean;
}

export function toolsCommand(io: CliIo): Command {
  const command = new Command('tools')
    .description("print the tools the agent's model is given")
    .option('--json', 'print only a JSON array of {name, description, parameters, source, disclosure}, sorted by name (same as --format json)')
    .addOption(
      new Option('--format <format>', 'print only the tool list in a model API\'s shape: "openai" (Chat Completions tools), "openai-responses" (Responses API tools), "anthropic" (Messages API tools) or "json"').choices(
        MODEL_TOOL_FORMATS,
      ),
    )
    .option('--all', 'also list builtin tools that are not active, with the reason');
  addWorkspaceOptions(command);
  command.action(async (flags: ToolsFlags) => {
    const session = openAgentSession(flags, io, { overrides: (container) => PrintingPromptInjection.bindTo(container, io.stderr) });
    try {
      await session.whenMcpSettled();
      const tools = session.agent.get(IAgentToolSelectService).modelTools();
      const format = flags.format ?? (flags.json ? 'json' : undefined);
      if (format !== undefined) {
        io.stdout.write(JSON.stringify(toModelTools(tools, format), null, 2) + '\n');
        return;
      }
      const rows = tools.map((t) => [t.name, t.source, t.disclosure, summaryLine(t.description, 90)]);
      if (flags.all) {
        for (const status of session.agent.activation.status()) {
          if (status.state !== 'active') rows.push([status.name, 'builtin', `(${status.state})`, status.reason ?? '']);
        }
        rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
      }
      io.stdout.write(formatTable(['NAME', 'SOURCE', 'DISCLOSURE', 'DESCRIPTION'], rows));
      io.stdout.write(
        `\n${tools.length} active tool${tools.length === 1 ? '' : 's'} in ${session.workspace.cwd}` +
          `${session.workspace.configFile ? ` (config: ${session.workspace.configFile})` : ''}.\n`,
      );
    } finally {
      await session.dispose();
    }
  });
  return command;
}
