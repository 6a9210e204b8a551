/**
 * What a run needs of its venue once connected, whichever network it is on: the resolved network,
 * the markets, the account and its owner, a line for the run's header, and how to let go of it.
 * `connectSimVenue` (the local venue) and `connectNetworkVenue` (testnet, mainnet) make one.
 */
import type { ResolvedNetwork } from '../../config/network-config.ts';
import type { Address } from '../../protocol/encoding.ts';
import type { MarketSpec } from '../../venue/market-spec.ts';

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
  /** What was done to make the wallet ready, for the run's header (`funded …; TRADE granted in block 7`). */
  readonly setup: string;
  /** Lets go of the venue (stops an in-process one). Idempotent. */
  stop(): Promise<void>;
}
