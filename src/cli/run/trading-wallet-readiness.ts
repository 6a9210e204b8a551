/**
 * Can the run's trading wallet trade for its account? The relay is asked with the probe of
 * `relay-signer-probe.ts`, signed under the run's authNonce epoch, and a wallet that cannot is
 * refused with RUN_ACCOUNT_NOT_READY and what to do about it (`clobbot account setup`, or the
 * authNonce to fix). Shared by the sim and the live-network connections.
 */
import { BaseError } from '../../core/base-error.ts';
import type { Clock } from '../../core/clock.ts';
import type { IdSource } from '../../core/ids.ts';
import type { ResolvedNetwork } from '../../config/network-config.ts';
import type { Address } from '../../protocol/encoding.ts';
import { probeSignerGrant, type SignerProbe } from '../../execution/relay-signer-probe.ts';
import type { RelayTransport } from '../../execution/relay-transport.ts';
import type { WalletSigner } from '../../execution/signer-source.ts';

export interface ProbeTradingWalletParameters {
  readonly transport: Pick<RelayTransport, 'submit'>;
  readonly wallet: WalletSigner;
  readonly network: ResolvedNetwork;
  readonly accountId: bigint;
  /** A market of the venue: the relay checks it first (UNKNOWN_MARKET). */
  readonly market: Address;
  readonly authNonce: bigint;
  readonly ids: IdSource;
  readonly clock: Clock;
}

/** Asks the relay whether the wallet is delegated and holds TRADE on the account under `authNonce`. */
export function probeTradingWallet(params: ProbeTradingWalletParameters): Promise<SignerProbe> {
  return probeSignerGrant((request) => params.transport.submit(request), {
    signer: params.wallet.account,
    chainId: params.network.chainId,
    domainVersion: params.network.tradingWalletDomainVersion,
    accountId: params.accountId,
    market: params.market,
    authNonce: params.authNonce,
    requestId: params.ids.next(),
    nonce: BigInt(Math.floor(params.clock.now())),
  });
}

/** True when the probe says the wallet may trade for the account under the authNonce it was signed with. */
export function isTradeReady(probe: SignerProbe): boolean {
  return probe.delegated === true && probe.trade === true && probe.authNonceMatches !== false;
}

export interface NotReadyContext {
  readonly wallet: Address;
  readonly owner: Address;
  readonly accountId: bigint;
  readonly authNonce: bigint;
  readonly network: ResolvedNetwork;
  /** The run file, for the commands to suggest. */
  readonly runFile: string;
}

/**
 * RUN_ACCOUNT_NOT_READY saying why the wallet cannot trade and what to run or fix, or undefined when
 * it can.
 *
 * @example const error = notReadyError(probe, { wallet, owner, accountId: 7n, authNonce: 0n, network, runFile }); if (error) throw error;
 */
export function notReadyError(probe: SignerProbe, context: NotReadyContext): BaseError | undefined {
  if (isTradeReady(probe)) return undefined;
  const { wallet, owner, accountId, authNonce, network, runFile } = context;
  const account = `account ${accountId}${owner === wallet ? '' : ` of ${owner}`}`;
  const says = `the relay says ${probe.code}${probe.message === '' || probe.message === probe.code ? '' : `: ${probe.message}`}`;
  const setup = `run clobbot account setup --config ${runFile}${network.name === 'sim' ? '' : ` --network ${network.name}`}${owner === wallet ? '' : ' --owner-key-env <variable holding the owner key>'} first`;
  let message: string;
  if (probe.delegated === false) {
    message = `the trading wallet ${wallet} is not delegated (EIP-7702) to the trading-wallet delegate on ${network.name} (${says}): ${setup}`;
  } else if (probe.trade === false) {
    message = `the trading wallet ${wallet} holds no TRADE grant on ${account} (${says}): ${setup}, or check account.id in ${runFile}`;
  } else if (probe.authNonceMatches === false) {
    message =
      `${account} is not at the authNonce epoch the run signs under, ${authNonce} (account.authNonce in ${runFile}${authNonce === 0n ? ', default 0' : ''}; ${says}): ` +
      "set account.authNonce to the account's current epoch (revoking a signer bumps it), and run clobbot account setup again if the grant was revoked";
  } else {
    const hint = probe.code === 'INVALID_SIGNATURE' ? ` (check that the relay is for chain ${network.chainId} and tradingWalletDomainVersion "${network.tradingWalletDomainVersion}")` : '';
    message = `cannot tell whether the trading wallet ${wallet} may trade for ${account}: ${says}${hint}`;
  }
  return new BaseError('RUN_ACCOUNT_NOT_READY', message, {
    details: { wallet, owner, accountId: String(accountId), authNonce: String(authNonce), code: probe.code },
  });
}
