import * as api from 'clobbot';
import * as testing from 'clobbot/testing';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly these names from clobbot (a change here is an API change: review it)', () => {
    expect(Object.keys(api).sort()).toMatchSnapshot();
  });

  it('exports exactly these names from clobbot/testing', () => {
    expect(Object.keys(testing).sort()).toMatchSnapshot();
  });

  it('resolves `clobbot` to this repository, as users import it', () => {
    expect(api.MAKER_SLOTS).toBe(62);
    expect(new api.BaseError('CLI_USAGE', 'x')).toBeInstanceOf(Error);
  });
});
