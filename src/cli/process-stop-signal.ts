/**
 * SIGINT or SIGTERM as an AbortSignal, for the commands that run until stopped (`sim`, `record`,
 * `worker`). Each handler is added once, so a second signal has its default action; `dispose`
 * removes them.
 */
export function processStopSignal(): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
