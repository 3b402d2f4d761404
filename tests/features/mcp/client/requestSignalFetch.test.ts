import { getEventListeners } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestSignalFetch } from '../../../../src/features/mcp/client/requestSignalFetch';

let server: http.Server;
let base = '';
/** Responses of /stream that are still open: the test ends them. */
const open = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/stream') {
      // Headers and a first chunk, then nothing: a response body that is read for as long as the client wants.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      open.add(res);
      res.on('close', () => open.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('requestSignalFetch: one transport-wide signal for many requests', () => {
  test('2,000 requests leave one listener on the shared signal and no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const shared = new AbortController();
      const fetchFn = requestSignalFetch();
      for (let i = 0; i < 2000; i++) {
        const response = await fetchFn(`${base}/json`, { method: 'POST', body: '{}', signal: shared.signal });
        expect(await response.json()).toEqual({ ok: true });
      }
      expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('aborting the shared signal aborts a response body still being read', async () => {
    const shared = new AbortController();
    const response = await requestSignalFetch()(`${base}/stream`, { signal: shared.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    const next = reader.read();
    shared.abort(new Error('transport closed'));
    await expect(next).rejects.toThrow('transport closed');
  });

  test('an already aborted signal rejects the request with its reason, and a request without one is left alone', async () => {
    const shared = new AbortController();
    shared.abort(new Error('closed before'));
    await expect(requestSignalFetch()(`${base}/json`, { signal: shared.signal })).rejects.toThrow('closed before');
    const response = await requestSignalFetch()(`${base}/json`);
    expect(await response.json()).toEqual({ ok: true });
  });
});
