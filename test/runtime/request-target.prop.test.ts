import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestTarget, requestTargetUncached as reference } from '../../src/runtime/in-process-http.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const piece = fc.constantFrom('?', '#', '?a=1', '&b=x y', '#x?y', '?q#f', '\t', ' ', '\\', '/..', '/./', '%2e', '%', '@', ':', 'u:p@', '[', ':99999', '/p?q', '', 'é', '\n', "'", '"', '<', '>', '`', '{', '\u007f', '+', '=');

describe('requestTarget', () => {
  it('answers as parsing the whole URL does, whatever the query, fragment or odd characters', () => {
    const url = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(
        fc.constantFrom('http://h', 'https://user:pw@h:8443', 'http://venue.in-process', 'http://venue.in-process/api/v3/depth', 'foo://h', 'ws://h/relay', ' http://h', 'http:h', 'mailto:x', ''),
        fc.array(piece, { maxLength: 6 }),
      ).map(([start, parts]) => start + parts.join('')),
    );
    fc.assert(
      fc.property(url, url, (first, second) => {
        // Twice each, in either order: a remembered part must still give the right answer.
        expect(requestTarget(first)).toEqual(reference(first));
        expect(requestTarget(second)).toEqual(reference(second));
        expect(requestTarget(first)).toEqual(reference(first));
      }),
      fuzzSettings({ numRuns: 3000 }),
    );
  });

  it('keeps a poll query as it is', () => {
    expect(requestTarget('http://venue.in-process/api/v3/depth?symbol=MON_USDC&limit=100')).toEqual({
      origin: 'http://venue.in-process',
      pathname: '/api/v3/depth',
      target: '/api/v3/depth?symbol=MON_USDC&limit=100',
    });
  });
});
