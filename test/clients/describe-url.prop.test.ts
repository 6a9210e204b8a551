import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeUrl, describeUrlUncached as reference } from '../../src/clients/http-transport.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const piece = fc.constantFrom('?', '#', '?a=1', '#x?y', '?q#f', '\t', ' ', '\\', '/..', '/./', '%2e', '@', ':', 'u:p@', '[', ':99999', '/p?q', '', 'é', '\n');

describe('describeUrl', () => {
  it('answers as parsing the whole URL does, whatever the query, fragment or odd characters', () => {
    const url = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.constantFrom('http://h', 'https://user:pw@h:8443', 'http://venue.in-process', 'foo://h', ' http://h', 'http:h', ''), fc.array(piece, { maxLength: 6 })).map(
        ([start, parts]) => start + parts.join(''),
      ),
    );
    fc.assert(
      fc.property(url, url, (first, second) => {
        // Twice each, in either order: a remembered answer must still be the right one.
        expect(describeUrl(first)).toBe(reference(first));
        expect(describeUrl(second)).toBe(reference(second));
        expect(describeUrl(first)).toBe(reference(first));
      }),
      fuzzSettings({ numRuns: 2000 }),
    );
  });

  it('leaves out the query and any credentials', () => {
    expect(describeUrl('http://user:secret@127.0.0.1:31337/api/v3/depth?symbol=MON_USDC')).toBe('http://127.0.0.1:31337/api/v3/depth');
    expect(describeUrl('not a url?x=1')).toBe('(invalid URL)');
  });
});
