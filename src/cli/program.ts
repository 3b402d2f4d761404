import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { packageVersion } from '../base/packageInfo';
import { errorMessage } from '../base/errors';
import { ConfigError } from '../services/config/configLoader';
import { mcpCommand } from './commands/mcp';
import { runCommand } from './commands/run';
import { skillsCommand } from './commands/skills';
import { toolsCommand } from './commands/tools';
import { workerCommand } from './commands/worker';
import { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, InterruptedError, signalExitCode, stopSignalOf, UsageError } from './io';

const VERSION = packageVersion();

export function buildProgram(io: CliIo): Command {
  const program = new Command('toolhost')
    .description('The tool layer of an AI coding agent: list, run and serve tools.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  program.addCommand(toolsCommand(io));
  program.addCommand(runCommand(io));
  program.addCommand(mcpCommand(io));
  program.addCommand(skillsCommand(io));
  program.addCommand(workerCommand(io));
  const configure = (commands: readonly Command[]) => {
    for (const command of commands) {
      command.exitOverride().configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      });
      command.showSuggestionAfterError(true);
      configure(command.commands);
    }
  };
  configure(program.commands);
  return program;
}

/**
 * Runs the CLI and returns its exit code; it never throws. Stopped by a signal (`io.interrupt`),
 * the code is 128 + the signal's number, whatever the command returned.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const code = await runProgram(argv, io);
  const signal = stopSignalOf(io.interrupt);
  return signal ? signalExitCode(signal) : code;
}

async function runProgram(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT_USAGE;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help shown because a subcommand is missing (`toolhost mcp`) is a usage error.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
      // Commander has already printed its message.
      return EXIT_USAGE;
    }
    if (error instanceof UsageError || error instanceof InvalidArgumentError) {
      io.stderr.write(`toolhost: ${error.message}\n`);
      return EXIT_USAGE;
    }
    // The signal was reported when it came.
    if (error instanceof InterruptedError) return EXIT_FAILURE;
    if (error instanceof ConfigError) {
      io.stderr.write(`toolhost: ${error.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr.write(`toolhost: unexpected error: ${errorMessage(error)}\n`);
    if (io.env.TOOLHOST_DEBUG && error instanceof Error && error.stack) io.stderr.write(error.stack + '\n');
    return EXIT_FAILURE;
  }
}
