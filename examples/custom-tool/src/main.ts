import { writeFileSync } from 'node:fs';
import { Feature, builtinFeatures, checkToolConformance, createApp } from 'toolhost';
import { wordCountConfig, wordCountTool } from './wordCountTool.js';

// A feature of one's own: its config section and its tool.
const wordCountFeature = new Feature('wordCount').contributeConfig(wordCountConfig).contributeTool(wordCountTool);

const cwd = process.argv[2] ?? process.cwd();
writeFileSync(`${cwd}/notes.txt`, 'one two three\nfour\n');
const app = createApp({ features: [...builtinFeatures(), wordCountFeature], config: { wordCount: { maxKb: 64 } } });
const agent = app.createAgent({ cwd });
const tool = agent.registry.get('WordCount')!.tool;
const problems = await checkToolConformance(tool, wordCountTool.samples ?? []);
const [result] = await agent.executor.execute([{ id: 'call_1', name: 'WordCount', arguments: '{"path": "notes.txt"}' }]);
console.log(JSON.stringify({ problems, outcome: result!.outcome, output: result!.output, describes: tool.description.includes('64 KB') }));
await app.dispose();
