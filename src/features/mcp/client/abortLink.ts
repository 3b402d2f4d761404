interface Link {
  readonly controllers: Set<AbortController>;
  readonly listener: () => void;
}

const links = new WeakMap<AbortSignal, Link>();

/**
 * A signal of its own that aborts when `parent` does, with one listener on `parent` however many
 * links are open at once (a batch of 200 calls adds one, not 200), removed when the last link is
 * disposed. The MCP SDK adds an abort listener to a request's signal and never removes it, so each
 * request gets such a short-lived signal instead of the caller's.
 */
export function linkAbortSignal(parent: AbortSignal | undefined): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (!parent) return { signal: controller.signal, dispose: () => undefined };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  let link = links.get(parent);
  if (!link) {
    const controllers = new Set<AbortController>();
    const listener = () => {
      links.delete(parent);
      for (const c of controllers) c.abort(parent.reason);
      controllers.clear();
    };
    parent.addEventListener('abort', listener, { once: true });
    link = { controllers, listener };
    links.set(parent, link);
  }
  const current = link;
  current.controllers.add(controller);
  return {
    signal: controller.signal,
    dispose: () => {
      if (!current.controllers.delete(controller) || current.controllers.size > 0) return;
      parent.removeEventListener('abort', current.listener);
      if (links.get(parent) === current) links.delete(parent);
    },
  };
}
