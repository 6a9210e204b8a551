import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import {
  DEFAULT_NETWORK,
  hostUrlProblem,
  missingHosts,
  NETWORK_DEFAULTS,
  requireHosts,
  resolveNetwork,
  simHosts,
} from '../../src/config/network-config.ts';

function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isBaseError(error) ? error.code : 'not a BaseError';
  }
  return undefined;
}

describe('networks', () => {
  it('has the chain ids and published hosts of protocol-facts.md', () => {
    expect(NETWORK_DEFAULTS.mainnet.chainId).toBe(143);
    expect(NETWORK_DEFAULTS.testnet.chainId).toBe(10143);
    expect(NETWORK_DEFAULTS.sim.chainId).toBe(31337);
    expect(NETWORK_DEFAULTS.mainnet.hosts).toEqual({
      baseUrl: 'https://api.kuru.io',
      userUrl: 'https://api.kuru.io',
      quoteUrl: 'https://ws.kuru.io',
      exchangeUrl: 'https://exchange.kuru.io',
    });
    expect(NETWORK_DEFAULTS.testnet.hosts).toEqual({
      relayUrl: 'https://relay.testnet.kuru.io',
      relayWsUrl: 'wss://relay.testnet.kuru.io/relay/ws',
    });
    for (const network of Object.values(NETWORK_DEFAULTS)) expect(network.tradingWalletDomainVersion).toBe('1');
  });

  it('defaults to sim, never mainnet', () => {
    expect(DEFAULT_NETWORK).toBe('sim');
    expect(NETWORK_DEFAULTS.mainnet.realMoney).toBe(true);
  });

  it('derives every sim host from one base URL', () => {
    expect(simHosts('http://127.0.0.1:4100/')).toEqual({
      baseUrl: 'http://127.0.0.1:4100',
      userUrl: 'http://127.0.0.1:4100',
      quoteUrl: 'http://127.0.0.1:4100',
      exchangeUrl: 'http://127.0.0.1:4100',
      relayUrl: 'http://127.0.0.1:4100',
      relayWsUrl: 'ws://127.0.0.1:4100/relay/ws',
      rpcUrl: 'http://127.0.0.1:4100/rpc',
    });
    expect(resolveNetwork('sim', { venueUrl: 'https://sim.example:9000' }).hosts.relayWsUrl).toBe('wss://sim.example:9000/relay/ws');
  });
});

describe('resolveNetwork', () => {
  it('applies host overrides and the domain version', () => {
    const network = resolveNetwork('testnet', {
      hosts: { exchangeUrl: 'https://md.example/', relayUrl: 'https://relay.example' },
      tradingWalletDomainVersion: '2',
    });
    expect(network.hosts).toEqual({
      exchangeUrl: 'https://md.example',
      relayUrl: 'https://relay.example',
      relayWsUrl: 'wss://relay.testnet.kuru.io/relay/ws',
    });
    expect(network.tradingWalletDomainVersion).toBe('2');
    expect(Object.isFrozen(network.hosts)).toBe(true);
  });

  it('throws NETWORK_UNKNOWN for an unknown name', () => {
    expect(thrownCode(() => resolveNetwork('devnet'))).toBe('NETWORK_UNKNOWN');
    expect(thrownCode(() => resolveNetwork('Mainnet'))).toBe('NETWORK_UNKNOWN');
  });

  it('throws NETWORK_HOST_INVALID for a bad host, without repeating it', () => {
    for (const [host, url] of [
      ['exchangeUrl', 'ftp://x.example'],
      ['relayWsUrl', 'https://relay.example/relay/ws'],
      ['relayUrl', 'not a url'],
      ['userUrl', 'https://user:pw@api.example'],
      ['relayWsUrl', 'wss://relay.example/relay/ws?token=abc'],
    ] as const) {
      let error: unknown;
      try {
        resolveNetwork('testnet', { hosts: { [host]: url } });
      } catch (caught) {
        error = caught;
      }
      expect(isBaseError(error, 'NETWORK_HOST_INVALID'), `${host} ${url}`).toBe(true);
      expect(JSON.stringify(error) + String((error as Error).message)).not.toContain(url);
    }
  });

  it('refuses sim-only overrides on other networks', () => {
    expect(thrownCode(() => resolveNetwork('testnet', { venueUrl: 'http://127.0.0.1:1' }))).toBe('CONFIG_INVALID');
    expect(resolveNetwork('sim', { chainId: 31338 }).chainId).toBe(31338);
  });

  it('tells which hosts a network does not publish', () => {
    expect(missingHosts(resolveNetwork('sim'))).toEqual([]);
    expect(missingHosts(resolveNetwork('testnet'))).toEqual(['exchangeUrl', 'userUrl', 'rpcUrl']);
    expect(missingHosts(resolveNetwork('mainnet'))).toEqual(['relayUrl', 'relayWsUrl', 'rpcUrl']);
    let message = '';
    try {
      requireHosts(resolveNetwork('mainnet'));
    } catch (error) {
      expect(isBaseError(error, 'CONFIG_INVALID')).toBe(true);
      message = (error as Error).message;
    }
    expect(message).toBe(
      'network mainnet has no default relayUrl, relayWsUrl, rpcUrl (not published): set hosts.relayUrl, hosts.relayWsUrl, hosts.rpcUrl in the run file',
    );
  });

  it('checks host URLs by kind', () => {
    expect(hostUrlProblem('relayWsUrl', 'wss://a.example/relay/ws')).toBeUndefined();
    expect(hostUrlProblem('relayWsUrl', 'http://a.example')).toBe('expected a ws:// or wss:// URL');
    expect(hostUrlProblem('rpcUrl', 'ws://a.example')).toBe('expected an http:// or https:// URL');
  });
});
