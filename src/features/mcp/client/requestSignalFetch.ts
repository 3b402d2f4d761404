import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The signals given to requests that follow one transport signal, weakly: a request's ends with it. */
interface Followers {
  readonly signals: Set<WeakRef<AbortSignal>>;
}

const followersOf = new WeakMap<AbortSignal, Followers>();
/** A request's signal keeps its controller: it is what aborts it. */
const controllerOf = new WeakMap<AbortSignal, AbortController>();
const forgotten = new FinalizationRegistry<{ readonly followers: Followers; readonly ref: WeakRef<AbortSignal> }>(({ followers, ref }) => {
  followers.signals.delete(ref);
});

/** A signal of its own for one request, aborted when `parent` is, through one listener on `parent` for all of them. */
function requestSignal(parent: AbortSignal): AbortSignal {
  let followers = followersOf.get(parent);
  if (!followers) {
    const created: Followers = { signals: new Set() };
    parent.addEventListener(
      'abort',
      () => {
        for (const ref of created.signals) {
          const signal = ref.deref();
          if (signal) controllerOf.get(signal)?.abort(parent.reason);
        }
        created.signals.clear();
      },
      { once: true },
    );
    followersOf.set(parent, created);
    followers = created;
  }
  const controller = new AbortController();
  controllerOf.set(controller.signal, controller);
  const ref = new WeakRef(controller.signal);
  followers.signals.add(ref);
  forgotten.register(controller.signal, { followers, ref });
  return controller.signal;
}

/**
 * A fetch for the SDK's Streamable HTTP client transport, which passes one connection-wide
 * AbortSignal to every request. Node's fetch adds an abort listener to a request's signal and
 * removes it only once the request has been garbage-collected, so on that shared signal they pile
 * up: a MaxListenersExceededWarning on stderr after about 1,500 calls, and a listener list that
 * every removal scans. Here each request gets a signal of its own, which Node's fetch listens to
 * and drops with the request; the shared signal has one listener, which aborts every request still
 * alive (a response body being read included) when the transport closes. Unlike linkAbortSignal
 * (abortLink.ts), nothing here says when a request is done (its body may be read much later), so
 * the request signals are held weakly instead of disposed.
 */
export function requestSignalFetch(inner: FetchLike = fetch): FetchLike {
  return (url, init) => {
    const parent = init?.signal;
    if (!parent || parent.aborted) return inner(url, init);
    return inner(url, { ...init, signal: requestSignal(parent) });
  };
}
