/**
 * Freezes `value` and every object and array inside it, so validated config cannot change under the
 * components that read it.
 *
 * @example deepFreeze({ a: { b: [1] } }).a.b // frozen too
 */
export function deepFreeze<T>(value: T): T {
  freeze(value, new WeakSet());
  return value;
}

function freeze(value: unknown, seen: WeakSet<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  // Typed arrays with elements cannot be frozen; config holds none.
  if (ArrayBuffer.isView(value)) return;
  for (const key of Reflect.ownKeys(value)) {
    freeze((value as Record<PropertyKey, unknown>)[key], seen);
  }
  Object.freeze(value);
}
