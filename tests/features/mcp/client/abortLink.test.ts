import { linkAbortSignal } from '../../../../src/features/mcp/client/abortLink';

describe('linkAbortSignal', () => {
  test('links abort with the parent, through one listener however many links are open', () => {
    const parent = new AbortController();
    const added = jest.spyOn(parent.signal, 'addEventListener');
    const removed = jest.spyOn(parent.signal, 'removeEventListener');
    const links = Array.from({ length: 50 }, () => linkAbortSignal(parent.signal));
    expect(added).toHaveBeenCalledTimes(1);
    links[0]!.dispose();
    parent.abort(new Error('stop'));
    expect(links.map((l) => l.signal.aborted)).toEqual([false, ...Array<boolean>(49).fill(true)]);
    expect((links[1]!.signal.reason as Error).message).toBe('stop');
    expect(removed).not.toHaveBeenCalled();
  });

  test('the listener is removed when the last link is disposed, and added again for new links', () => {
    const parent = new AbortController();
    const added = jest.spyOn(parent.signal, 'addEventListener');
    const removed = jest.spyOn(parent.signal, 'removeEventListener');
    const a = linkAbortSignal(parent.signal);
    const b = linkAbortSignal(parent.signal);
    a.dispose();
    a.dispose();
    expect(removed).not.toHaveBeenCalled();
    b.dispose();
    expect(removed).toHaveBeenCalledTimes(1);
    const c = linkAbortSignal(parent.signal);
    expect(added).toHaveBeenCalledTimes(2);
    parent.abort();
    expect(c.signal.aborted).toBe(true);
  });

  test('an aborted parent gives an aborted signal; no parent gives a signal that never aborts', () => {
    expect(linkAbortSignal(AbortSignal.abort('why')).signal.reason).toBe('why');
    expect(linkAbortSignal(undefined).signal.aborted).toBe(false);
  });
});
