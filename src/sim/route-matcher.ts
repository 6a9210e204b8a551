/**
 * Matching a request's method and path against route patterns with `:name` segments. A literal
 * segment beats a parameter at the same position, so `/api/v3/depth` wins over `/api/v3/:user`
 * whatever the order of the routes.
 */
import type { SimRoute } from './http-types.ts';

export type RouteMatch =
  | { readonly kind: 'found'; readonly route: SimRoute; readonly params: Readonly<Record<string, string>> }
  /** The path exists with other methods: answer 405 with `Allow`. */
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

interface CompiledRoute {
  readonly route: SimRoute;
  /** A literal segment, or `{ param }` for a `:name` segment. */
  readonly segments: readonly (string | { readonly param: string })[];
}

export interface RouteMatcher {
  match(method: string, path: string): RouteMatch;
}

function compile(route: SimRoute): CompiledRoute {
  const segments = route.pattern
    .split('/')
    .slice(1)
    .map((segment) => (segment.startsWith(':') ? { param: segment.slice(1) } : segment));
  return { route, segments };
}

/** Decodes one captured path segment; undefined when its percent-encoding is malformed. */
function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Params of `compiled` for the split path, or undefined when it does not match. `score` ranks
 * matches: one bit per position, set where the pattern is literal (earlier positions weigh more).
 */
function tryMatch(compiled: CompiledRoute, parts: readonly string[]): { params: Record<string, string>; score: number } | undefined {
  if (compiled.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  let score = 0;
  for (let i = 0; i < parts.length; i++) {
    const segment = compiled.segments[i]!;
    const part = parts[i]!;
    score *= 2;
    if (typeof segment === 'string') {
      if (segment !== part) return undefined;
      score += 1;
    } else {
      if (part === '') return undefined;
      const decoded = decodeSegment(part);
      if (decoded === undefined) return undefined;
      params[segment.param] = decoded;
    }
  }
  return { params, score };
}

/**
 * A matcher over `routes`.
 *
 * @example
 * createRouteMatcher(routes).match('GET', '/api/v3/0xabc…/user/order-events')
 * // { kind: 'found', route, params: { userAddress: '0xabc…' } }
 */
export function createRouteMatcher(routes: readonly SimRoute[]): RouteMatcher {
  const compiled = routes.map(compile);
  return {
    match(method, path) {
      const parts = path.split('/').slice(1);
      let best: { route: SimRoute; params: Record<string, string>; score: number } | undefined;
      const allow = new Set<string>();
      for (const candidate of compiled) {
        const matched = tryMatch(candidate, parts);
        if (matched === undefined) continue;
        if (candidate.route.method !== method) {
          allow.add(candidate.route.method);
          continue;
        }
        if (best === undefined || matched.score > best.score) best = { route: candidate.route, ...matched };
      }
      if (best !== undefined) return { kind: 'found', route: best.route, params: best.params };
      if (allow.size > 0) return { kind: 'method-not-allowed', allow: [...allow].sort() };
      return { kind: 'not-found' };
    },
  };
}
