import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { toAnthropicToolResult, toOpenAiChatMessages, toOpenAiResponsesItem } from '../../../src/tool/modelResultFormats';
import { createMediaFeature } from '../../../src/tools/media/mediaFeature';
import { openMcpServeHarness } from '../../helpers/mcpServeHarness';
import { useAgent } from '../../helpers/agentHarness';
import { makeTempDir, removeDir } from '../../helpers/tempDir';
import { quadrants } from './mediaImages';

/** ReadMediaFile's content parts reach MCP clients and the provider message shapes unchanged. */
describe('ReadMediaFile results as hosts send them', () => {
  const fx = useAgent({ features: [createMediaFeature()], modelCapabilities: ['image_in'] });

  test('the provider-message helpers carry the image part byte for byte', async () => {
    const png = await quadrants(64, 32).png().toBuffer();
    fs.writeFileSync(nodePath.join(fx.dir, 'a.png'), png);
    const h = fx.open();
    const result = await h.call('ReadMediaFile', { path: 'a.png' }, { id: 'call_img' });
    const data = png.toString('base64');
    const open = '<image path="a.png" mime="image/png" width="64" height="32">';
    const anthropic = toAnthropicToolResult(result);
    expect(anthropic.content).toEqual([
      { type: 'text', text: open },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      { type: 'text', text: expect.stringMatching(/^<\/image>\nOriginal PNG 64×32/) },
    ]);
    expect(toOpenAiResponsesItem(result).output).toEqual([
      { type: 'input_text', text: open },
      { type: 'input_image', image_url: `data:image/png;base64,${data}` },
      { type: 'input_text', text: expect.stringMatching(/^<\/image>/) },
    ]);
    const [tool, user] = toOpenAiChatMessages([result]);
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: 'call_img' });
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'Attachments of tool call call_img:' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }] });
  });

  test('toolhost mcp serve returns the image as an MCP image block', async () => {
    const dir = makeTempDir('toolhost-media-mcp-');
    try {
      const png = await quadrants(64, 32).png().toBuffer();
      fs.writeFileSync(nodePath.join(dir, 'a.png'), png);
      const h = fx.use(await openMcpServeHarness({ cwd: dir, features: [createMediaFeature()], modelCapabilities: ['image_in'] }));
      const listed = await h.client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(['ReadMediaFile']);
      const result = await h.client.callTool({ name: 'ReadMediaFile', arguments: { path: 'a.png' } });
      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual([
        { type: 'text', text: '<image path="a.png" mime="image/png" width="64" height="32">' },
        { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        { type: 'text', text: expect.stringMatching(/^<\/image>\nOriginal PNG 64×32/) },
      ]);
      expect(result.structuredContent).toMatchObject({ path: 'a.png', sent: true, sentMime: 'image/png', width: 64, height: 32 });
    } finally {
      removeDir(dir);
    }
  });
});
