/** Values that break code which reads them carelessly: for tests that whatever a tool or hook throws or returns is contained. */

/** An Error whose `message`, `name` and `stack` getters throw (it throws itself). */
export function throwingGettersError(): Error {
  const error = Object.create(Error.prototype) as Error;
  for (const key of ['message', 'name', 'stack']) {
    Object.defineProperty(error, key, {
      get() {
        throw error;
      },
    });
  }
  return error;
}

/** A Proxy every trap of which throws (get, has, ownKeys, getPrototypeOf, …), including reading `then`. */
export function throwingProxy(): object {
  const trap = () => {
    throw throwingGettersError();
  };
  // The handler is itself a Proxy: whatever trap the engine looks up is `trap`.
  return new Proxy({}, new Proxy({}, { get: () => trap }));
}
