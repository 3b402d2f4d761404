import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcLineReader, McpStdioServerTransport, type OversizedLine, recoverRequestId } from '../../../../src/features/mcp/serve/stdioServerTransport';
import { waitFor } from '../../../helpers/async';

function reader(maxBytes: number): { reader: JsonRpcLineReader; events: Array<string | OversizedLine> } {
  const events: Array<string | OversizedLine> = [];
  return { reader: new JsonRpcLineReader(maxBytes, { line: (text) => events.push(text), oversized: (line) => events.push(line) }), events };
}

describe('JsonRpcLineReader', () => {
  test('lines split across chunks, several in one chunk, and CRLF endings', () => {
    const { reader: r, events } = reader(100);
    r.push(Buffer.from('{"a":'));
    r.push(Buffer.from('1}\n{"b":2}\r\n{"c"'));
    expect(events).toEqual(['{"a":1}', '{"b":2}']);
    r.push(Buffer.from(':3}\n'));
    expect(events).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test('a multi-byte character split between chunks stays whole', () => {
    const { reader: r, events } = reader(100);
    const euro = Buffer.from('"€"\n');
    r.push(euro.subarray(0, 2));
    r.push(euro.subarray(2));
    expect(events).toEqual(['"€"']);
  });

  test('a line over the limit is reported with its size, start and end only; the next line is read', () => {
    const { reader: r, events } = reader(10);
    r.push(Buffer.from('abcdefgh'));
    r.push(Buffer.from('ijklmnop'));
    r.push(Buffer.from('qrstuvwxyz\n{"ok":1}\n'));
    expect(events).toEqual([{ bytes: 26, head: Buffer.from('abcdefghijklmnopqrstuvwxyz'), tail: Buffer.from('abcdefghijklmnopqrstuvwxyz') }, '{"ok":1}']);
  });

  test('only 4 KiB of each end of an oversized line are kept', () => {
    const { reader: r, events } = reader(1000);
    r.push(Buffer.from('<' + 'x'.repeat(100_000)));
    r.push(Buffer.from('y'.repeat(100_000) + '>\n'));
    const line = events[0] as OversizedLine;
    expect(line.bytes).toBe(200_002);
    expect(line.head.toString()).toBe('<' + 'x'.repeat(4095));
    expect(line.tail.toString()).toBe('y'.repeat(4095) + '>');
  });
});

describe('recoverRequestId', () => {
  test.each<[string, string, string, string | number | null]>([
    ['id first', '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"content":"xxx', '', 7],
    ['id after the method', '{"jsonrpc": "2.0", "method": "tools/call", "id": "req-1", "params": {"a', '', 'req-1'],
    ['a nested id is not the message id', '{"params":{"id":5,"content":"xx', 'xx"}}', null],
    ['an id inside a string is not the id', '{"params":{"text":"\\"id\\":9, \\"', 'x"}}', null],
    ['id last, as the SDK writes it', '{"method":"tools/call","params":{"content":"xx', 'xxx"}},"jsonrpc":"2.0","id":42}', 42],
    ['a string id last', '{"method":"tools/call","params":{"x":"y', 'y"},"id":"a\\"b"}\n', 'a"b'],
    ['a nested id at the end is not the message id', '{"method":"m","params":{"x":"y', 'y","id":3}}', null],
    ['a number cut by the window is not taken', '{"id":12', '', null],
    ['neither end shows it', '{"method":"m","params":{"x":"y', 'yyyy"}}', null],
  ])('%s', (_name, head, tail, id) => {
    expect(recoverRequestId(head, tail)).toBe(id);
  });
});

describe('McpStdioServerTransport', () => {
  function open(maxMessageBytes: number) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let written = '';
    stdout.setEncoding('utf8').on('data', (d: string) => (written += d));
    const transport = new McpStdioServerTransport(stdin, stdout, { maxMessageBytes });
    const messages: JSONRPCMessage[] = [];
    const errors: string[] = [];
    transport.onmessage = (m) => messages.push(m);
    transport.onerror = (e) => errors.push(e.message);
    return { stdin, stdout, transport, messages, errors, written: () => written };
  }

  test('answers a message over the limit with a JSON-RPC error naming the limit, and reads the next one', async () => {
    const t = open(1024);
    await t.transport.start();
    t.stdin.write(JSON.stringify({ method: 'tools/call', params: { content: 'x'.repeat(5000) }, jsonrpc: '2.0', id: 3 }) + '\n');
    t.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }) + '\n');
    await waitFor(() => t.messages.length === 1 && t.written() !== '', { what: 'the answer and the next message' });
    expect(JSON.parse(t.written())).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32600,
        message: 'Message too large: 5.0 KB (5,070 bytes) is over the limit of 1.0 KB for one JSON-RPC message, so it was not processed. Send a smaller request.',
      },
    });
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    expect(t.errors).toEqual(['a message of 5,070 bytes is over the limit of 1.0 KB; answered with error -32600 (id 3)']);
  });

  test('a line that is not JSON-RPC is reported and skipped', async () => {
    const t = open(1024);
    await t.transport.start();
    t.stdin.write('not json\n\n' + JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    await waitFor(() => t.messages.length === 1, { what: 'the message' });
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toMatch(/JSON/);
  });

  test('sending after stdout closed rejects instead of waiting for a drain', async () => {
    const t = open(1024);
    await t.transport.start();
    t.stdout.destroy();
    await expect(t.transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow('Not connected: stdout is closed.');
    await t.transport.close();
    await expect(t.transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow('Not connected: the transport is closed.');
  });
});
