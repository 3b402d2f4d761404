import { readFile, stat } from 'node:fs/promises';
import {
  type ExecutableTool,
  IAgentWorkspaceService,
  IConfigService,
  type ToolExecution,
  ToolAccesses,
  createServiceId,
  defineConfigSection,
  inject,
  injectable,
  literalRule,
  loadDescriptionTemplate,
  matchPathRule,
  registerAgentToolService,
  renderPrompt,
  resolvePathAccessPath,
  toInputJsonSchema,
  toolError,
  z,
} from 'toolhost';

// The schema: what the model may pass, with text written for the model.
export const WordCountInputSchema = z.object({
  path: z.string().describe('The text file to count the words of. Relative to the working directory.'),
});
export type WordCountInput = z.infer<typeof WordCountInputSchema>;
export const WORD_COUNT_SAMPLES: readonly WordCountInput[] = [{ path: 'notes.txt' }, { path: 'docs/a.md' }];

// The feature's config section, with defaults: `{"wordCount": {"maxKb": 256}}` in toolhost.json.
export const wordCountConfig = defineConfigSection('wordCount', z.strictObject({ maxKb: z.number().int().min(1).default(256) }).prefault({}));

@injectable()
export class WordCountTool implements ExecutableTool<WordCountInput> {
  readonly name = 'WordCount';
  readonly parameters = toInputJsonSchema(WordCountInputSchema);

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
  ) {}

  get description(): string {
    // In an ES module, the template is found from import.meta.url (the build copies the .md).
    return renderPrompt(loadDescriptionTemplate(import.meta.url, 'wordCount.md'), { MAX_KB: this.config.section(wordCountConfig).maxKb });
  }

  // Resolve first, execute later: no I/O here, only the path, accesses and approval rule.
  resolveExecution(input: WordCountInput): ToolExecution {
    const path = resolvePathAccessPath(input.path, this.workspace.pathContext('read a file'));
    return {
      accesses: [ToolAccesses.readFile(path)],
      display: { kind: 'file_io', operation: 'read', path },
      description: `Counting the words of ${input.path}`,
      approvalRule: literalRule('WordCount', path),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, path, { cwd: this.workspace.cwd }),
      execute: async () => {
        const maxKb = this.config.section(wordCountConfig).maxKb;
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) return toolError(`"${input.path}" is not a file. Check the path, or use Glob to find it.`);
        if (info.size > maxKb * 1024) return toolError(`"${input.path}" is larger than ${maxKb} KB; count a part of it with Bash (wc -w).`);
        const words = (await readFile(path, 'utf8')).split(/\s+/).filter(Boolean).length;
        return { output: `${words} words` };
      },
    };
  }
}

export const IWordCountTool = createServiceId<WordCountTool>('example.WordCount');
export const wordCountTool = registerAgentToolService(IWordCountTool, WordCountTool, {
  name: 'WordCount',
  domain: 'example',
  requiredRuntimeCapabilities: ['fs'],
  samples: WORD_COUNT_SAMPLES,
});
