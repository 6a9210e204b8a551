/**
 * What a run needs of its venue once connected, whichever network it is on: the resolved network,
 * the markets, the account and its owner, how its clients reach it (the venue seam: an HTTP
 * transport and a relay socket factory), a line for the run's header, and how to let go of it.
 * `connectSimVenue` (the local venue, on loopback or in-process) and `connectNetworkVenue` (testnet,
 * mainnet) make one.
 */
import type { ResolvedNetwork } from '../config/network-config.ts';
import type { HttpTransport } from '../clients/http-transport.ts';
import type { WebSocketFactory } from '../clients/relay-socket.ts';
import type { Address } from '../protocol/encoding.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';

export interface VenueConnection {
  readonly network: ResolvedNetwork;
  /** Where the run trades, for its header: `in-process venue http://127.0.0.1:4100`, `relay https://relay.testnet.kuru.io`. */
  readonly where: string;
  /** The venue's block interval when it publishes one (the sim does), to fit the depth polling. */
  readonly blockMs: number | undefined;
  /** The run's markets, in run-file order. */
  readonly specs: readonly MarketSpec[];
  readonly accountId: bigint;
  /** The account owner (user-data queries are by owner). */
  readonly owner: Address;
  /** The signer-authorization epoch the run signs under. */
  readonly authNonce: bigint;
  /** The account-core contract whose views the engine reads the account's balances and slots from; undefined: no chain reads. */
  readonly accountCore: Address | undefined;
  /** What was done to make the wallet ready, for the run's header (`funded …; TRADE granted in block 7`). */
  readonly setup: string;
  /** How every HTTP client reaches the venue's hosts: fetch, or the in-process venue's dispatcher. */
  readonly transport: HttpTransport;
  /** How the relay WebSocket client opens its socket; undefined: the `ws` package. */
  readonly createSocket?: WebSocketFactory;
  /** Lets go of the venue (stops an in-process one). Idempotent. */
  stop(): Promise<void>;
}
