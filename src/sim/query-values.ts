/**
 * URL query parameters as a plain record for the protocol's query schemas: the first value of a
 * repeated name is kept, and the record has no prototype, so no inherited name (`constructor`,
 * `__proto__`) can appear as a parameter.
 *
 * @example firstQueryValues(new URLSearchParams('limit=5&limit=9')) // { limit: '5' }
 */
export function firstQueryValues(query: URLSearchParams): Record<string, string> {
  const raw = Object.create(null) as Record<string, string>;
  for (const [name, value] of query) {
    if (!Object.hasOwn(raw, name)) raw[name] = value;
  }
  return raw;
}
