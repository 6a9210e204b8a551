/**
 * The networks clobbot can trade on and their hosts. Hosts are configuration, never code: every
 * default below can be overridden, and a host the venue does not publish has no default at all, so
 * a run on that network must name it (see `missingHosts`).
 */
import { BaseError } from '../core/base-error.ts';

export const NETWORK_NAMES = ['mainnet', 'testnet', 'sim'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/** The default network is the local simulated venue, never mainnet. */
export const DEFAULT_NETWORK: NetworkName = 'sim';

/**
 * The hosts of the service (spec placeholders `{base_url}`, `{user_url}`, …), plus the JSON-RPC
 * endpoint used to read receipts when reconciling.
 */
export const HOST_NAMES = ['baseUrl', 'userUrl', 'quoteUrl', 'exchangeUrl', 'relayUrl', 'relayWsUrl', 'rpcUrl'] as const;
export type HostName = (typeof HOST_NAMES)[number];
/**
 * A network's host URLs by name.
 *
 * @useDeclaredType
 */
export type NetworkHosts = { readonly [K in HostName]?: string };

/** The hosts `clobbot run` talks to: market data, user data, relay REST and WS, and receipts. */
export const TRADING_HOSTS: readonly HostName[] = ['exchangeUrl', 'userUrl', 'relayUrl', 'relayWsUrl', 'rpcUrl'];

/** Default port of `clobbot sim` (the chain id of the local venue, easy to remember). */
export const DEFAULT_SIM_PORT = 31337;
export const DEFAULT_SIM_URL = `http://127.0.0.1:${DEFAULT_SIM_PORT}`;
/** Path of the relay WebSocket on every network (protocol-facts.md). */
export const RELAY_WS_PATH = '/relay/ws';
/** Path of the simulated venue's JSON-RPC endpoint (ours). */
export const SIM_RPC_PATH = '/rpc';

export interface NetworkDefaults {
  readonly name: NetworkName;
  readonly chainId: number;
  /** Published hosts only; a missing entry is a host the venue does not publish. */
  readonly hosts: NetworkHosts;
  /** `version` of the EIP-712 domain `KuruTradingWallet` (the venue's newer contracts use "2"). */
  readonly tradingWalletDomainVersion: string;
  /** Runs on loopback; dev-only endpoints exist. */
  readonly local: boolean;
  /** Moves real money: a run must opt in with `allowMainnet: true`. */
  readonly realMoney: boolean;
}

/**
 * Every host of the local venue from its one base URL: `clobbot sim` serves all hosts on one port,
 * the relay WebSocket at `/relay/ws` and JSON-RPC at `/rpc`.
 *
 * @example simHosts('http://127.0.0.1:4000').relayWsUrl // 'ws://127.0.0.1:4000/relay/ws'
 */
export function simHosts(baseUrl: string): Required<NetworkHosts> {
  const url = parseHostUrl('baseUrl', baseUrl, 'venueUrl');
  const http = url.replace(/\/$/, '');
  const ws = http.replace(/^http/, 'ws');
  return {
    baseUrl: http,
    userUrl: http,
    quoteUrl: http,
    exchangeUrl: http,
    relayUrl: http,
    relayWsUrl: `${ws}${RELAY_WS_PATH}`,
    rpcUrl: `${http}${SIM_RPC_PATH}`,
  };
}

/** The built-in networks (protocol-facts.md, "Hosts and networks"). */
export const NETWORK_DEFAULTS: Readonly<Record<NetworkName, NetworkDefaults>> = Object.freeze({
  mainnet: Object.freeze({
    name: 'mainnet',
    chainId: 143,
    hosts: Object.freeze({
      baseUrl: 'https://api.kuru.io',
      userUrl: 'https://api.kuru.io',
      quoteUrl: 'https://ws.kuru.io',
      exchangeUrl: 'https://exchange.kuru.io',
      // relayUrl, relayWsUrl: not published for mainnet. rpcUrl: the user's RPC provider.
    }),
    tradingWalletDomainVersion: '1',
    local: false,
    realMoney: true,
  }),
  testnet: Object.freeze({
    name: 'testnet',
    chainId: 10143,
    hosts: Object.freeze({
      relayUrl: 'https://relay.testnet.kuru.io',
      relayWsUrl: `wss://relay.testnet.kuru.io${RELAY_WS_PATH}`,
      // baseUrl, userUrl, quoteUrl, exchangeUrl: not published for testnet. rpcUrl: the user's RPC provider.
    }),
    tradingWalletDomainVersion: '1',
    local: false,
    realMoney: false,
  }),
  sim: Object.freeze({
    name: 'sim',
    chainId: 31337,
    hosts: Object.freeze(simHosts(DEFAULT_SIM_URL)),
    tradingWalletDomainVersion: '1',
    local: true,
    realMoney: false,
  }),
});

export interface NetworkOverrides {
  /** Per-host overrides; each replaces the network's default. */
  readonly hosts?: NetworkHosts;
  /** sim only: the base URL of a running `clobbot sim`; every sim host derives from it. */
  readonly venueUrl?: string;
  /** The EIP-712 trading-wallet domain version. */
  readonly tradingWalletDomainVersion?: string;
  /** sim only: the chain id the local venue was configured with. */
  readonly chainId?: number;
}

export interface ResolvedNetwork {
  readonly name: NetworkName;
  readonly chainId: number;
  /** Default hosts with the overrides applied; hosts no one published nor configured are absent. */
  readonly hosts: NetworkHosts;
  readonly tradingWalletDomainVersion: string;
  readonly local: boolean;
  readonly realMoney: boolean;
}

/** True when `name` is one of the built-in networks. */
export function isNetworkName(name: string): name is NetworkName {
  return (NETWORK_NAMES as readonly string[]).includes(name);
}

/**
 * What is wrong with `url` as the value of `host`, or undefined when it is fine: relayWsUrl must be
 * ws(s), every other host http(s); no credentials, query or fragment (a token never goes in a URL).
 * The message never repeats the URL.
 */
export function hostUrlProblem(host: HostName, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'expected an absolute URL';
  }
  const allowed = host === 'relayWsUrl' ? ['ws:', 'wss:'] : ['http:', 'https:'];
  if (!allowed.includes(parsed.protocol)) return `expected ${host === 'relayWsUrl' ? 'a ws:// or wss://' : 'an http:// or https://'} URL`;
  if (parsed.username !== '' || parsed.password !== '') return 'a host URL must not carry credentials';
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) {
    return 'a host URL must not carry a query or fragment';
  }
  return undefined;
}

function parseHostUrl(host: HostName, url: string, label: string = `hosts.${host}`): string {
  const problem = hostUrlProblem(host, url);
  if (problem !== undefined) {
    throw new BaseError('NETWORK_HOST_INVALID', `${label}: ${problem}`, { details: { host: label } });
  }
  return url.replace(/\/+$/, '');
}

/**
 * A network by name with its defaults and the given overrides. Throws NETWORK_UNKNOWN for a name
 * that is not mainnet, testnet or sim, NETWORK_HOST_INVALID for a malformed host, and CONFIG_INVALID
 * for an override that does not apply to the network (venueUrl or chainId outside sim).
 *
 * @example
 * resolveNetwork('sim', { venueUrl: 'http://127.0.0.1:4000' }).hosts.relayWsUrl // 'ws://127.0.0.1:4000/relay/ws'
 * resolveNetwork('testnet', { hosts: { exchangeUrl: 'https://md.example' } }).chainId // 10143
 */
export function resolveNetwork(name: string, overrides: NetworkOverrides = {}): ResolvedNetwork {
  if (!isNetworkName(name)) {
    throw new BaseError('NETWORK_UNKNOWN', `unknown network ${JSON.stringify(name.slice(0, 40))}: expected one of ${NETWORK_NAMES.join(', ')}`, {
      details: { expected: NETWORK_NAMES },
    });
  }
  const defaults = NETWORK_DEFAULTS[name];
  if (name !== 'sim' && (overrides.venueUrl !== undefined || overrides.chainId !== undefined)) {
    throw new BaseError('CONFIG_INVALID', `venueUrl and chainId can only be set for the sim network, not ${name}`, {
      details: { network: name },
    });
  }
  const hosts: Record<string, string> = {
    ...(overrides.venueUrl !== undefined ? simHosts(overrides.venueUrl) : defaults.hosts),
  };
  for (const host of HOST_NAMES) {
    const url = overrides.hosts?.[host];
    if (url !== undefined) hosts[host] = parseHostUrl(host, url);
  }
  const version = overrides.tradingWalletDomainVersion ?? defaults.tradingWalletDomainVersion;
  if (!/^[0-9A-Za-z.-]{1,16}$/.test(version)) {
    throw new BaseError('CONFIG_INVALID', 'tradingWalletDomainVersion must be 1 to 16 letters, digits, dots or dashes', {
      details: { network: name },
    });
  }
  const chainId = overrides.chainId ?? defaults.chainId;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new BaseError('CONFIG_INVALID', 'chainId must be a positive integer', { details: { network: name } });
  }
  return Object.freeze({
    name,
    chainId,
    hosts: Object.freeze(hosts) as NetworkHosts,
    tradingWalletDomainVersion: version,
    local: defaults.local,
    realMoney: defaults.realMoney,
  });
}

/**
 * The hosts of `required` that a network has neither by default nor by override.
 *
 * @example missingHosts(resolveNetwork('testnet')) // ['exchangeUrl', 'userUrl', 'rpcUrl']
 */
export function missingHosts(network: Pick<ResolvedNetwork, 'hosts'>, required: readonly HostName[] = TRADING_HOSTS): HostName[] {
  return required.filter((host) => network.hosts[host] === undefined);
}

/**
 * Throws CONFIG_INVALID naming every host of `required` the network lacks, and how to set it.
 *
 * @example requireHosts(resolveNetwork('testnet', { hosts }), TRADING_HOSTS)
 */
export function requireHosts(network: ResolvedNetwork, required: readonly HostName[] = TRADING_HOSTS): void {
  const missing = missingHosts(network, required);
  if (missing.length > 0) {
    throw new BaseError('CONFIG_INVALID', missingHostsMessage(network.name, missing), {
      details: { network: network.name, missing },
    });
  }
}

/** `network testnet publishes no exchangeUrl, userUrl: set hosts.exchangeUrl, hosts.userUrl in the run file`. */
export function missingHostsMessage(network: NetworkName, missing: readonly HostName[]): string {
  return `network ${network} has no default ${missing.join(', ')} (not published): set ${missing.map((host) => `hosts.${host}`).join(', ')} in the run file`;
}
