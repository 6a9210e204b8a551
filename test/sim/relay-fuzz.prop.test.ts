/**
 * Fuzzing the relay endpoints with fast-check: whatever a client sends to `POST /relay` or as a
 * WebSocket frame, the server never answers 5xx (but the UNKNOWN fault's 503, off here), never
 * crashes, and answers every WebSocket frame exactly once, in order. A failure prints fast-check's
 * seed and path to replay it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALLET, batchRestBody, batchWsFrame, bearer, getJson, onboard, postText, restingBuy, startTestVenue, TestSocket, type TestVenue } from './relay-harness.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

let venue: TestVenue;
let token: string;
let validRest: Record<string, any>;
let validWs: Record<string, any>;

beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 20, maxBodyBytes: 64 * 1024 });
  const onboarded = await onboard(venue);
  token = onboarded.token;
  const market = venue.config.markets[0]!.address;
  validRest = JSON.parse(await batchRestBody(venue, WALLET, { accountId: onboarded.accountId, market, orders: [restingBuy()] }));
  validWs = JSON.parse(await batchWsFrame(venue, WALLET, 'template', { accountId: onboarded.accountId, market, orders: [restingBuy()] }));
});
afterAll(() => venue.stop());

const PATHS = [
  [],
  ['id'],
  ['requestId'],
  ['method'],
  ['wallet'],
  ['payload'],
  ['payload', 'header'],
  ['payload', 'header', 'nonce'],
  ['payload', 'header', 'accountId'],
  ['payload', 'header', 'market'],
  ['payload', 'orders'],
  ['payload', 'orders', 0],
  ['payload', 'orders', 0, 'price'],
  ['payload', 'orders', 0, 'side'],
  ['payload', 'cancelSlotIdxs'],
  ['payload', 'signature'],
  ['authorization7702'],
] as const;

type Mutation =
  | { kind: 'set'; path: number; value: unknown }
  | { kind: 'delete'; path: number }
  | { kind: 'add'; path: number; key: string; value: unknown }
  | { kind: 'duplicate'; key: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), path: fc.nat(PATHS.length - 1), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.nat(PATHS.length - 1) }),
  fc.record({ kind: fc.constant('add' as const), path: fc.nat(PATHS.length - 1), key: fc.string({ maxLength: 8 }), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), key: fc.constantFrom('id', 'requestId', 'method', 'nonce', 'price', 'signature', 'side') }),
);

/** A valid request with a few mutations, as text. */
function mutate(template: Record<string, any>, mutations: readonly Mutation[]): string {
  let value: any = structuredClone(template);
  const duplicates: string[] = [];
  for (const change of mutations) {
    if (change.kind === 'duplicate') {
      duplicates.push(change.key);
      continue;
    }
    const path = PATHS[change.path]!;
    if (path.length === 0) {
      if (change.kind === 'set') value = change.value;
      else if (change.kind === 'add' && typeof value === 'object' && value !== null) value[change.key] = change.value;
      continue;
    }
    let parent: any = value;
    for (const key of path.slice(0, -1)) parent = typeof parent === 'object' && parent !== null ? parent[key] : undefined;
    if (typeof parent !== 'object' || parent === null) continue;
    const last = path.at(-1)!;
    if (change.kind === 'set') parent[last] = change.value;
    else if (change.kind === 'delete') delete parent[last];
    else if (typeof parent[last] === 'object' && parent[last] !== null) parent[last][change.key] = change.value;
  }
  let text = JSON.stringify(value) ?? 'null';
  for (const key of duplicates) text = text.replace(new RegExp(`"${key}":("[^"]*"|[0-9]+)`), (match) => `${match},${match}`);
  return text;
}

const restBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  fc.array(mutation, { minLength: 1, maxLength: 4 }).map((mutations) => mutate(validRest, mutations)),
);

const wsFrame = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  fc.record({ id: fc.string({ minLength: 1, maxLength: 70 }), method: fc.string(), payload: fc.jsonValue({ maxDepth: 2 }) }).map((frame) => JSON.stringify(frame)),
  fc.tuple(fc.string({ minLength: 1, maxLength: 64 }), fc.array(mutation, { maxLength: 4 })).map(([id, mutations]) => mutate({ ...validWs, id }, mutations)),
);

/** The id a frame carries as JSON.parse reads it (what a response must echo), if any. */
function frameId(text: string): unknown {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value.id : undefined;
  } catch {
    return undefined;
  }
}

describe('relay fuzz', () => {
  it('POST /relay: never a 5xx, always a relay answer', async () => {
    await fc.assert(
      fc.asyncProperty(restBody, async (body) => {
        const answer = await postText(`${venue.url}/relay`, body, bearer(token));
        expect(answer.status).toBeLessThan(500);
        expect([200, 400, 401, 403, 413, 422, 429]).toContain(answer.status);
        expect(Object.hasOwn(answer.body, 'requestId')).toBe(true);
        expect(['BROADCAST', 'REJECTED']).toContain(answer.body.status);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
    expect((await getJson(`${venue.url}/sim/info`)).status).toBe(200);
  });

  it('WebSocket frames: one answer per frame, in order, each response echoing the id', async () => {
    const socket = await TestSocket.connect(venue.url, token);
    let round = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(wsFrame, { minLength: 1, maxLength: 12 }), async (frames) => {
          round += 1;
          const sentinel = `sentinel-${round}`;
          const start = socket.messages.length;
          for (const frame of frames) socket.send(frame);
          socket.send(JSON.stringify({ id: sentinel }));
          await socket.message('response', sentinel);
          const answers = socket.messages.slice(start).filter((message) => message.type !== 'outcome');
          expect(answers).toHaveLength(frames.length + 1);
          frames.forEach((frame, index) => {
            const answer = answers[index];
            if (answer.type === 'error') {
              expect(typeof answer.code).toBe('string');
              return;
            }
            expect(answer.type).toBe('response');
            expect(answer.id).toBe(frameId(frame));
            expect(['BROADCAST', 'REJECTED']).toContain(answer.status);
          });
          expect(socket.closed).toBeUndefined();
        }),
        fuzzSettings({ numRuns: 150 }),
      );
    } finally {
      socket.close();
    }
    expect((await getJson(`${venue.url}/sim/info`)).status).toBe(200);
  });
});
