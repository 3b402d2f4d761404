import { Command } from 'commander';
import { ISkillCatalog } from '../../features/skills/contract';
import { openAgentSession } from '../agentSession';
import { addWorkspaceOptions, type WorkspaceFlags } from '../commonOptions';
import type { CliIo } from '../io';
import { formatTable, summaryLine } from '../table';

const NO_ROOTS =
  'No skills: no skills folder exists. A skill is a folder <name>/ with a SKILL.md, in .agents/skills or .claude/skills of the workspace or of the home directory, or in a folder named in config skills.paths.\n';

interface SkillsFlags extends WorkspaceFlags {
  readonly json?: boolean;
}

export function skillsCommand(io: CliIo): Command {
  const command = new Command('skills')
    .description('list the skills the agent finds (SKILL.md in .agents/skills and .claude/skills of the workspace and home directory, and config skills.paths) and the problems with them')
    .option('--json', 'print only a JSON object {roots, skills, diagnostics}');
  addWorkspaceOptions(command);
  command.action(async (flags: SkillsFlags) => {
    const session = openAgentSession(flags, io);
    try {
      const listing = session.agent.get(ISkillCatalog).list();
      if (flags.json) {
        io.stdout.write(JSON.stringify(listing, null, 2) + '\n');
        return;
      }
      if (listing.skills.length > 0) {
        const rows = listing.skills.map((s) => [s.name, s.disableModelInvocation ? `${s.scope}, user only` : s.scope, summaryLine(s.description, 90)]);
        io.stdout.write(formatTable(['NAME', 'SCOPE', 'DESCRIPTION'], rows));
        io.stdout.write('\n');
      }
      const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
      if (listing.roots.length === 0) io.stdout.write(NO_ROOTS);
      else io.stdout.write(`${count(listing.skills.length, 'skill')} in ${count(listing.roots.length, 'root')} (${listing.roots.join(', ')}).\n`);
      if (listing.diagnostics.length > 0) {
        io.stdout.write(`\n${count(listing.diagnostics.length, 'problem')}:\n`);
        for (const d of listing.diagnostics) io.stdout.write(`${d.severity}: ${d.path}: ${d.message}\n`);
      }
    } finally {
      await session.dispose();
    }
  });
  return command;
}
