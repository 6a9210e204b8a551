/**
 * `${NAME}` references in config strings, for secrets and per-machine values. Only the braced form
 * is recognised (no `$NAME`, no defaults); `$${` writes a literal `${`.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export type InterpolationResult =
  | { readonly ok: true; readonly value: string; /** Names of the variables used. */ readonly names: readonly string[] }
  | { readonly ok: false; readonly message: string };

const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces each `${NAME}` in `text` with the variable's value. A reference to an unset variable or a
 * malformed reference is a failure whose message names the variable, never a value.
 *
 * @example interpolateEnv('Bearer ${TOKEN}', { TOKEN: 'abc' }) // { ok: true, value: 'Bearer abc', names: ['TOKEN'] }
 * @example interpolateEnv('cost $${X}', {}) // { ok: true, value: 'cost ${X}', names: [] }
 */
export function interpolateEnv(text: string, env: Env): InterpolationResult {
  if (!text.includes('$')) return { ok: true, value: text, names: [] };
  const names: string[] = [];
  const missing: string[] = [];
  let malformed = false;
  const value = text.replace(REFERENCE, (match, name: string | undefined) => {
    if (match === '$${') return '${';
    if (!match.endsWith('}') || name === undefined || !NAME.test(name)) {
      malformed = true;
      return match;
    }
    const resolved = env[name];
    if (resolved === undefined) {
      missing.push(name);
      return match;
    }
    names.push(name);
    return resolved;
  });
  if (malformed) {
    return { ok: false, message: 'malformed ${...} reference: write ${NAME} with a variable name of letters, digits and _ (or $${ for a literal ${)' };
  }
  if (missing.length > 0) {
    const list = [...new Set(missing)];
    return {
      ok: false,
      message: `environment variable${list.length > 1 ? 's' : ''} ${list.join(', ')} ${list.length > 1 ? 'are' : 'is'} not set`,
    };
  }
  return { ok: true, value, names };
}
