/**
 * Captures uncaught exceptions of the real process while installed, through
 * process.setUncaughtExceptionCaptureCallback: a test's `process` is jest's sandboxed copy, whose
 * `on('uncaughtException')` listeners never hear the real process, but this one hook is global.
 * (An unhandled rejection fails the running test through jest's own handler.)
 */
export function captureUncaughtExceptions(): { readonly errors: unknown[]; dispose(): void } {
  const errors: unknown[] = [];
  process.setUncaughtExceptionCaptureCallback((error) => void errors.push(error));
  return { errors, dispose: () => process.setUncaughtExceptionCaptureCallback(null) };
}
