import { describe, expect, it } from 'vitest';
import { interpolateEnv } from '../../src/config/env-interpolation.ts';

describe('interpolateEnv', () => {
  it('replaces every ${NAME} and reports the names used', () => {
    expect(interpolateEnv('${A}:${B}/${A}', { A: 'x', B: 'y' })).toEqual({ ok: true, value: 'x:y/x', names: ['A', 'B', 'A'] });
  });

  it('leaves text without references alone, including a lone $ and $NAME', () => {
    expect(interpolateEnv('cost $5 and $HOME', {})).toEqual({ ok: true, value: 'cost $5 and $HOME', names: [] });
  });

  it('turns $${ into a literal ${ and does not resolve it', () => {
    expect(interpolateEnv('$${A} ${A}', { A: 'x' })).toEqual({ ok: true, value: '${A} x', names: ['A'] });
  });

  it('accepts a variable set to the empty string', () => {
    expect(interpolateEnv('[${E}]', { E: '' })).toEqual({ ok: true, value: '[]', names: ['E'] });
  });

  it('names every missing variable once, and no value', () => {
    const result = interpolateEnv('${SET}${MISSING_ONE}${MISSING_TWO}${MISSING_ONE}', { SET: 'secret-value' });
    expect(result).toEqual({ ok: false, message: 'environment variables MISSING_ONE, MISSING_TWO are not set' });
  });

  it('refuses malformed references', () => {
    for (const text of ['${', '${}', '${A', '${1A}', '${A-B}', '${A:-default}']) {
      expect(interpolateEnv(text, { A: 'x' }).ok, text).toBe(false);
    }
  });
});
