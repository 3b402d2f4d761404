/** The text of an unknown thrown value, for messages shown to a model or a person. */
export function errorMessage(error: unknown): string {
  // Not `instanceof Error`: errors from another realm (vm contexts, jest) fail that test.
  if (isErrorLike(error)) return error.message || error.name || 'Error';
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

export function isErrorLike(error: unknown): error is Error {
  return typeof error === 'object' && error !== null && typeof (error as Error).message === 'string' && 'stack' in error;
}

export function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return isErrorLike(error) && typeof (error as NodeJS.ErrnoException).code === 'string';
}
