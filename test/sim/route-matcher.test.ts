import { describe, expect, it } from 'vitest';
import type { SimRoute } from '../../src/sim/http-types.ts';
import { createRouteMatcher } from '../../src/sim/route-matcher.ts';

const handler = () => ({ status: 200, body: null });
const route = (method: 'GET' | 'POST', pattern: string): SimRoute => ({ method, pattern, handler });

describe('createRouteMatcher', () => {
  const userRoute = route('GET', '/api/v3/:userAddress/user/order-events');
  const activeRoute = route('GET', '/api/v2/:userAddress/user/orders/active/:marketAddress');
  const literal = route('GET', '/api/v3/depth');
  const param = route('GET', '/api/v3/:anything');
  const post = route('POST', '/api/quote');
  const matcher = createRouteMatcher([param, userRoute, activeRoute, literal, post]);

  it('captures every parameter', () => {
    expect(matcher.match('GET', '/api/v2/0xAB/user/orders/active/0xcd')).toEqual({
      kind: 'found',
      route: activeRoute,
      params: { userAddress: '0xAB', marketAddress: '0xcd' },
    });
    expect(matcher.match('GET', '/api/v3/0x1/user/order-events')).toMatchObject({ route: userRoute, params: { userAddress: '0x1' } });
  });

  it('prefers a literal segment whatever the route order', () => {
    expect(matcher.match('GET', '/api/v3/depth')).toMatchObject({ route: literal, params: {} });
    expect(matcher.match('GET', '/api/v3/klines')).toMatchObject({ route: param, params: { anything: 'klines' } });
  });

  it('says which methods a known path allows, and when nothing matches', () => {
    expect(matcher.match('GET', '/api/quote')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(matcher.match('GET', '/api/v3/')).toEqual({ kind: 'not-found' });
    expect(matcher.match('GET', '/api/v3/depth/')).toEqual({ kind: 'not-found' });
    expect(matcher.match('GET', '/api/v3/%ZZ')).toEqual({ kind: 'not-found' });
    expect(matcher.match('GET', '')).toEqual({ kind: 'not-found' });
  });
});
