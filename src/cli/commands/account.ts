/**
 * `clobbot account setup|status|balances --config <run file> [--network <n>] …`: makes the run file's trading
 * wallet able to trade for its account, and shows where it stands.
 *
 * `setup` signs the EIP-7702 authorization (trading wallet -> the network's trading-wallet delegate)
 * and the owner's `AuthorizeAccountSigner` grant (TRADE, signed by the owner key, `account` = the
 * owner address), submits `account_core.authorize_account_signer_by_sig` over the relay's REST
 * endpoint and waits for its outcome by receipt. On the sim it first funds the owner from the sim
 * config's `funding.default` (POST /sim/fund) unless the wallet is already set up or the sim config
 * funds the owner at start. A wallet that already holds delegation and TRADE is left alone.
 *
 * `status` shows the account id, the delegation and the TRADE grant (asked of the relay with a
 * probe it refuses: see `relay-signer-probe.ts`), the balances (free from the chain, locked by the
 * open orders) and the open orders per market; `balances` shows the balances alone.
 *
 * Network: `--network`, else the run file's (default sim). Mainnet needs `allowMainnet: true` in the
 * run file and `--allow-mainnet` here. Exit 0 done, 2 a mistake in the input (usage, config, keys),
 * 1 a failure (venue unreachable, grant refused or reverted).
 *
 * Why one file of this size: the three actions share `prepare` (run file, network, wallet, the
 * account's markets and contracts, with the run file's environment values kept out of every line);
 * what an account holds is account-holdings.ts.
 */
import { BaseError } from '../../core/base-error.ts';
import { liveClock } from '../../core/clock.ts';
import { createIdSource } from '../../core/ids.ts';
import { seededRandom } from '../../core/random.ts';
import { configError, loadConfig, loadConfigOrThrow } from '../../config/load-config.ts';
import { scrubKnownSecrets } from '../../core/secrets.ts';
import { DEFAULT_SIM_URL, isNetworkName, type ResolvedNetwork } from '../../config/network-config.ts';
import { resolveRunNetwork, runAuthNonce, runConfigSchema, runMarketSymbol, type RunConfig } from '../../config/run-config.ts';
import { simConfigSchema } from '../../config/sim-config.ts';
import { RelayMethod } from '../../protocol/constants.ts';
import type { Address } from '../../protocol/encoding.ts';
import type { Authorization7702 } from '../../protocol/intent-types.ts';
import { isClientError } from '../../clients/client-error.ts';
import { createFetchTransport } from '../../clients/http-transport.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { createRpcPublicClient } from '../../clients/rpc-public-client.ts';
import { accountHoldings, balanceTable, humanOrder, lockRuleOf, type MarketRef } from './account-holdings.ts';
import { createRelaySession } from '../../execution/relay-session.ts';
import { probeSignerGrant, type SignerProbe } from '../../execution/relay-signer-probe.ts';
import { createRestRelayTransport, type RestRelayTransport } from '../../execution/relay-transport.ts';
import { loadSigner, type WalletSigner } from '../../execution/signer-source.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { formatTable } from './market.ts';
import {
  describeAnswer,
  fundingAmounts,
  getSimInfo,
  signDelegation,
  signTradeGrant,
  simFund,
  submitSignerAuthorization,
  type SimInfo,
} from '../../runtime/sim-account.ts';

const DEFAULT_SIM_CONFIG = 'config/sim.yaml';
/** How long setup waits for the grant's receipt. */
const OUTCOME_DEADLINE_MS = 60_000;

const usage = [
  'clobbot account setup  --config <run file> [--network <n>] [--allow-mainnet] [--owner-key-env <VAR> | --owner-key-file <path>]',
  '                       [--account-core <address> --delegate <address>] [--market <SYMBOL=address> …]',
  'clobbot account status --config <run file> [--network <n>] [--allow-mainnet] [--market <SYMBOL=address> …]',
  'clobbot account balances --config <run file> [--network <n>] [--allow-mainnet] [--account-core <address>] [--json]',
  '',
  '  --config <file>          the run file: its wallet (the trading wallet), account and markets',
  '  --network <n>            sim, testnet or mainnet (default: the run file\'s network, itself default sim)',
  '  --allow-mainnet          required for mainnet, with allowMainnet: true in the run file',
  '  --owner-key-env <VAR>    setup: the environment variable holding the account owner\'s key',
  '  --owner-key-file <path>  setup: a file (mode 600) holding the account owner\'s key',
  '                           without either, the trading wallet owns its account (run file account.owner unset)',
  '  --account-core <addr>    off the sim: the network\'s account-core contract (default: the run file\'s',
  '                           account.accountCore; the sim publishes its own)',
  '  --delegate <addr>        off the sim: the network\'s trading-wallet delegate (EIP-7702)',
  '  --market <SYMBOL=addr>   off the sim, for a market listed by symbol only: its address, for the probe and the',
  '                           open orders (repeatable; a market given whole in the run file carries its own)',
  '  --json                   balances: one JSON object on stdout',
  '',
  'setup signs the EIP-7702 authorization and the owner\'s TRADE grant, submits',
  'account_core.authorize_account_signer_by_sig over the relay\'s REST endpoint and waits for its receipt.',
  'status and balances show free balances read from the chain (the account core\'s getBalanceById) and what',
  'the open orders lock, per token of the run file\'s markets.',
  'Exit 0 done; 2 a mistake in the input (usage, config, keys, mainnet not opted in); 1 a failure.',
].join('\n');

const usageError = (message: string) => new BaseError('CLI_USAGE', `account: ${message}`, { details: { command: 'account' } });

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

function addressOption(name: string, value: string | undefined): Address | undefined {
  if (value === undefined) return undefined;
  if (!addressPattern.test(value)) throw usageError(`--${name} must be an address (0x and 40 hex digits)`);
  return value.toLowerCase() as Address;
}

// ---- common preparation ---------------------------------------------------------------------

interface Prepared {
  readonly runFile: string;
  readonly run: RunConfig;
  readonly network: ResolvedNetwork;
  readonly context: ClientContext;
  readonly wallet: WalletSigner;
  /** sim only */
  readonly venueUrl: string | undefined;
  readonly simInfo: SimInfo | undefined;
  readonly accountCore: Address | undefined;
  readonly delegate: Address | undefined;
  /** The run file's markets whose address is known. */
  readonly markets: readonly MarketRef[];
  readonly unknownMarkets: readonly string[];
  readonly ids: { next(): string };
}

const commonOptions = {
  config: { type: 'string' },
  network: { type: 'string' },
  'allow-mainnet': { type: 'boolean' },
  market: { type: 'string', multiple: true },
} as const;

function parseMarketOptions(values: readonly string[] | undefined): Map<string, Address> {
  const markets = new Map<string, Address>();
  for (const value of values ?? []) {
    const match = /^([A-Z0-9]+_[A-Z0-9]+)=(0x[0-9a-fA-F]{40})$/.exec(value);
    if (!match) throw usageError('--market takes SYMBOL=address, e.g. MON_USDC=0xe790…');
    markets.set(match[1]!, match[2]!.toLowerCase() as Address);
  }
  return markets;
}

async function prepare(
  io: CliIo,
  values: { config?: string; network?: string; 'allow-mainnet'?: boolean; market?: string[]; 'account-core'?: string; delegate?: string },
  secrets: Set<string>,
): Promise<Prepared> {
  const runFile = values.config;
  if (runFile === undefined) throw usageError('--config <run file> is required');
  const loaded = await loadConfig(runFile, runConfigSchema, { env: io.env });
  if (!loaded.ok) throw configError(runFile, loaded.issues);
  const run = loaded.value;
  // The file's secrets, less the wallet's variable name and key-file path as written: those are said on purpose.
  const walletText = run.wallet.kind === 'env' ? run.wallet.name : run.wallet.kind === 'file' ? run.wallet.path : undefined;
  for (const secret of loaded.source.secrets) if (secret !== walletText) secrets.add(secret);
  const name = values.network ?? run.network;
  if (!isNetworkName(name)) {
    throw new BaseError('NETWORK_UNKNOWN', `unknown network ${JSON.stringify(name.slice(0, 40))}: expected one of mainnet, testnet, sim`, { details: {} });
  }
  if (name === 'mainnet' && (!run.allowMainnet || values['allow-mainnet'] !== true)) {
    const missing = [run.allowMainnet ? undefined : `allowMainnet: true in ${runFile}`, values['allow-mainnet'] === true ? undefined : '--allow-mainnet on the command line'].filter(Boolean);
    throw usageError(`mainnet moves real money: it needs ${missing.join(' and ')}`);
  }
  const clock = liveClock;
  const context: ClientContext = { transport: createFetchTransport(), clock, random: seededRandom(clock.now() % 2 ** 31) };
  const optionMarkets = parseMarketOptions(values.market);

  let network: ResolvedNetwork;
  let venueUrl: string | undefined;
  let simInfo: SimInfo | undefined;
  let accountCore = addressOption('account-core', values['account-core']) ?? run.account.accountCore;
  let delegate = addressOption('delegate', values.delegate);
  const markets: MarketRef[] = [];
  const unknownMarkets: string[] = [];
  if (name === 'sim') {
    venueUrl = (run.venueUrl ?? DEFAULT_SIM_URL).replace(/\/+$/, '');
    try {
      simInfo = await getSimInfo(context, venueUrl);
    } catch (error) {
      if (isClientError(error, 'HTTP_UNAVAILABLE') || isClientError(error, 'HTTP_TIMEOUT')) {
        throw new BaseError('HTTP_UNAVAILABLE', `the local venue at ${venueUrl} cannot be reached: is \`clobbot sim\` running? (the run file's venueUrl, default ${DEFAULT_SIM_URL})`, {
          cause: error,
        });
      }
      throw error;
    }
    network = resolveRunNetwork(run, { network: name, venueUrl, chainId: simInfo.chainId });
    accountCore = simInfo.contracts.accountCore.toLowerCase() as Address;
    delegate = simInfo.contracts.tradingWalletDelegate.toLowerCase() as Address;
    for (const symbol of run.markets.map(runMarketSymbol)) {
      const market = simInfo.markets.find((candidate) => candidate.symbol === symbol);
      if (market === undefined) unknownMarkets.push(symbol);
      else markets.push({ symbol, address: market.address.toLowerCase() as Address, base: market.baseToken.symbol, quote: market.quoteToken.symbol, tokens: { base: market.baseToken, quote: market.quoteToken }, lockRule: lockRuleOf(market) });
    }
  } else {
    network = resolveRunNetwork(run, { network: name });
    for (const entry of run.markets) {
      // A market given whole carries its address; a bare symbol (a sim file run with --network) needs --market.
      if (typeof entry !== 'string') {
        markets.push({ symbol: entry.symbol, address: entry.address, base: entry.baseToken.symbol, quote: entry.quoteToken.symbol, tokens: { base: entry.baseToken, quote: entry.quoteToken }, lockRule: lockRuleOf(entry) });
        continue;
      }
      const address = optionMarkets.get(entry);
      const [base = entry, quote = ''] = entry.split('_');
      if (address === undefined) unknownMarkets.push(entry);
      else markets.push({ symbol: entry, address, base, quote, tokens: undefined, lockRule: undefined });
    }
  }
  const wallet = await loadSigner({ source: run.wallet, network: network.name, env: io.env });
  return {
    runFile,
    run,
    network,
    context,
    wallet,
    venueUrl,
    simInfo,
    accountCore,
    delegate,
    markets,
    unknownMarkets,
    ids: createIdSource({ clock }),
  };
}

function openTransport(prepared: Prepared): { transport: RestRelayTransport; stop: () => Promise<void> } {
  const { network, context, wallet } = prepared;
  const session = createRelaySession(context, { network: network.name, relayUrl: network.hosts.relayUrl!, signer: wallet.account });
  const transport = createRestRelayTransport(context, {
    network: network.name,
    relayUrl: network.hosts.relayUrl!,
    rpcUrl: network.hosts.rpcUrl!,
    session,
    receiptPollMs: 250,
    receiptDeadlineMs: OUTCOME_DEADLINE_MS,
  });
  void transport.start();
  return {
    transport,
    stop: async () => {
      await transport.stop();
      session.stop();
    },
  };
}

/** The account id: the run file's, else (sim) from `POST /sim/fund` with amount 0 (opens an empty account when the owner has none). */
async function accountIdOf(prepared: Prepared, owner: Address): Promise<bigint | undefined> {
  if (prepared.run.account.id !== undefined) return prepared.run.account.id;
  if (prepared.venueUrl === undefined || prepared.simInfo === undefined) return undefined;
  const token = prepared.simInfo.tokens[0]?.symbol;
  if (token === undefined) return undefined;
  return simFund(prepared.context, prepared.venueUrl, { owner, token, amount: 0n });
}

async function probe(prepared: Prepared, transport: RestRelayTransport, accountId: bigint | undefined): Promise<SignerProbe | string> {
  if (accountId === undefined) return 'not checked: the account id is not known (set account.id in the run file)';
  const market = prepared.markets[0];
  if (market === undefined) return 'not checked: no market address is known (pass --market SYMBOL=address)';
  if (prepared.network.name === 'mainnet') return 'not checked on mainnet (the check is a relay request)';
  return probeSignerGrant((request) => transport.submit(request), {
    signer: prepared.wallet.account,
    chainId: prepared.network.chainId,
    domainVersion: prepared.network.tradingWalletDomainVersion,
    accountId,
    market: market.address,
    authNonce: runAuthNonce(prepared.run),
    requestId: prepared.ids.next(),
    nonce: BigInt(Math.floor(prepared.context.clock.now())),
  });
}

// ---- setup ----------------------------------------------------------------------------------

async function loadOwner(prepared: Prepared, io: CliIo, values: { 'owner-key-env'?: string; 'owner-key-file'?: string }): Promise<WalletSigner> {
  const envName = values['owner-key-env'];
  const file = values['owner-key-file'];
  if (envName !== undefined && file !== undefined) throw usageError('give --owner-key-env or --owner-key-file, not both');
  const configured = prepared.run.account.owner;
  let owner: WalletSigner;
  if (envName !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(envName)) throw usageError('--owner-key-env takes the NAME of an environment variable, not a key');
    owner = await loadSigner({ source: { kind: 'env', name: envName }, network: prepared.network.name, env: io.env });
  } else if (file !== undefined) {
    owner = await loadSigner({ source: { kind: 'file', path: file }, network: prepared.network.name, env: io.env });
  } else {
    if (configured !== undefined && configured !== prepared.wallet.address) {
      throw usageError(`the account owner ${configured} (account.owner in ${prepared.runFile}) is not the trading wallet: pass --owner-key-env or --owner-key-file`);
    }
    return prepared.wallet;
  }
  if (configured !== undefined && configured !== owner.address) {
    throw new BaseError('CONFIG_INVALID', `the owner key (${owner.origin}) is for ${owner.address}, but ${prepared.runFile} names account.owner ${configured}`, {
      details: { configured, key: owner.address },
    });
  }
  return owner;
}

async function eip7702Nonce(prepared: Prepared): Promise<{ nonce: bigint; note: string }> {
  if (prepared.network.name === 'sim') {
    // The sim's JSON-RPC has no eth_getTransactionCount; its EIP-7702 nonces start at 0 and are used only by setups.
    return { nonce: 0n, note: 'nonce 0' };
  }
  const client = createRpcPublicClient(prepared.context, { rpcUrl: prepared.network.hosts.rpcUrl! });
  const count = await client.getTransactionCount({ address: prepared.wallet.address, blockTag: 'pending' });
  return { nonce: BigInt(count), note: `nonce ${count}, the wallet's transaction count` };
}

async function runSetup(args: readonly string[], io: CliIo, secrets: Set<string>): Promise<number> {
  const { values } = parseCommandArgs(args, {
    command: 'account setup',
    options: { ...commonOptions, 'owner-key-env': { type: 'string' }, 'owner-key-file': { type: 'string' }, 'account-core': { type: 'string' }, delegate: { type: 'string' } },
    positionals: [],
  });
  const prepared = await prepare(io, values, secrets);
  const { network, wallet, context, run } = prepared;
  const out = (line = '') => io.stdout.write(`${line}\n`);
  if (prepared.accountCore === undefined || prepared.delegate === undefined) {
    throw usageError(`the run file names no contracts for ${network.name}: pass --account-core <address> and --delegate <address>`);
  }
  const accountCore = prepared.accountCore;
  const delegate = prepared.delegate;
  const owner = await loadOwner(prepared, io, values);

  out(`account setup on ${network.name} (chain ${network.chainId}, relay ${network.hosts.relayUrl})`);
  out(`  trading wallet  ${wallet.address} (${wallet.origin})`);
  out(`  owner           ${owner.address} (${owner === wallet ? 'the trading wallet itself' : owner.origin})`);
  if (wallet.kind === 'ephemeral') out('  note: the wallet is ephemeral: a fresh key for this command only, so this grant is of no use afterwards');

  const { transport, stop } = openTransport(prepared);
  try {
    const accountId = await accountIdOf(prepared, owner.address);
    out(`  account id      ${accountId ?? 'not known yet (the account core assigns it; set account.id in the run file afterwards)'}`);
    const before = await probe(prepared, transport, accountId);
    if (typeof before !== 'string' && before.delegated === true && before.trade === true) {
      out(`done: ${wallet.address} is already delegated and holds TRADE on account ${accountId}; nothing to do`);
      return ExitCode.ok;
    }

    if (prepared.venueUrl !== undefined && prepared.simInfo !== undefined) {
      const simFile = run.simConfig ?? DEFAULT_SIM_CONFIG;
      const sim = await loadConfigOrThrow(simFile, simConfigSchema, { env: io.env });
      const fundedAtStart = sim.funding.accounts.some((account) => account.owner === owner.address);
      if (fundedAtStart) {
        out(`  funding         none needed: ${simFile} funds ${owner.address} when the venue starts`);
      } else {
        const amounts = fundingAmounts(sim, prepared.simInfo);
        for (const amount of amounts) await simFund(context, prepared.venueUrl, { owner: owner.address, token: amount.symbol, amount: amount.raw });
        out(
          amounts.length === 0
            ? `  funding         none: funding.default of ${simFile} is empty`
            : `  funded          the owner had not been set up: credited ${amounts.map((amount) => `${amount.human} ${amount.symbol}`).join(', ')} on the sim (funding.default of ${simFile}, POST /sim/fund)`,
        );
      }
    }

    let authorization7702: Authorization7702 | null = null;
    if (typeof before !== 'string' && before.delegated === true) {
      out(`  delegation      already in place (the relay says ${before.code}); no EIP-7702 authorization needed`);
    } else {
      const { signAuthorization } = wallet.account;
      if (signAuthorization === undefined) {
        throw usageError(`the trading wallet's signer (${wallet.origin}) cannot sign EIP-7702 authorizations`);
      }
      const { nonce, note } = await eip7702Nonce(prepared);
      authorization7702 = await signDelegation(wallet, { network, delegate, nonce });
      out(`  signed          EIP-7702 authorization: ${wallet.address} delegates to ${delegate} (chain ${network.chainId}, ${note})`);
    }

    const grant = await signTradeGrant(owner, { wallet: wallet.address, network, accountCore, nowMs: context.clock.now() });
    const { intent } = grant;
    out(`  signed          AuthorizeAccountSigner: TRADE for ${wallet.address} on the account of ${owner.address} (never expires; nonce ${intent.nonce})`);

    const requestId = prepared.ids.next();
    const { answer, outcome, watched } = await submitSignerAuthorization(transport, { requestId, wallet: wallet.address, grant, authorization7702 });
    out(`  submitted       ${RelayMethod.authorizeAccountSigner} over REST: ${describeAnswer(answer)}`);
    if (!watched) {
      throw new BaseError('ACCOUNT_SETUP_FAILED', `the relay did not take the signer authorization: ${describeAnswer(answer)}`, {
        details: { status: answer.status, ...('code' in answer ? { code: answer.code } : {}) },
      });
    }
    out(`  waiting         for the receipt (at most ${OUTCOME_DEADLINE_MS / 1000} s)`);
    const result = await outcome;
    if (result === undefined || result.status !== 'CONFIRMED') {
      const why = result === undefined ? 'the receipt watch stopped' : `${result.status}${result.reason === null ? '' : `: ${result.reason}`}`;
      throw new BaseError('ACCOUNT_SETUP_FAILED', `the signer authorization ${result?.txHash ?? ''} did not confirm: ${why}`.replace('  ', ' '), {
        details: { requestId, status: result?.status ?? 'NONE' },
      });
    }
    out(`  outcome         CONFIRMED in block ${result.blockNumber} (tx ${result.txHash}, read from the receipt)`);
    const after = accountId === undefined ? undefined : await probe(prepared, transport, accountId);
    if (after !== undefined && typeof after !== 'string' && after.trade !== true) {
      out(`  check           the relay still says ${after.code}: ${after.message}`);
    }
    out(`done: ${wallet.address} can trade for the account of ${owner.address}${accountId === undefined ? '' : ` (account ${accountId})`} with TRADE`);
    return ExitCode.ok;
  } finally {
    await stop();
  }
}

// ---- status ---------------------------------------------------------------------------------

function grantLines(result: SignerProbe | string, authNonce: bigint): { delegation: string; grant: string } {
  if (typeof result === 'string') return { delegation: result, grant: result };
  const delegation = result.delegated === true ? 'yes (EIP-7702, to the trading-wallet delegate)' : result.delegated === false ? `no (${result.code})` : `unknown (${result.code}: ${result.message})`;
  const grant =
    result.trade === true
      ? `yes: TRADE${result.authNonceMatches === false ? `, under another authNonce epoch than ${authNonce} (account.authNonce)` : ''} (other permission bits are not visible through the relay)`
      : result.trade === false
        ? `no (${result.code})`
        : result.delegated === false
          ? 'unknown until the wallet is delegated'
          : `unknown (${result.code}: ${result.message})`;
  return { delegation, grant };
}

async function runStatus(args: readonly string[], io: CliIo, secrets: Set<string>): Promise<number> {
  const { values } = parseCommandArgs(args, { command: 'account status', options: commonOptions, positionals: [] });
  const prepared = await prepare(io, values, secrets);
  const { network, wallet, run } = prepared;
  const owner = run.account.owner ?? wallet.address;
  const out = (line = '') => io.stdout.write(`${line}\n`);
  out(`account status on ${network.name} (chain ${network.chainId}, relay ${network.hosts.relayUrl})`);
  out(`  trading wallet  ${wallet.address} (${wallet.origin})`);
  out(`  owner           ${owner}${owner === wallet.address ? ' (the trading wallet itself)' : ''}`);
  const { transport, stop } = openTransport(prepared);
  try {
    const accountId = await accountIdOf(prepared, owner);
    out(`  account id      ${accountId ?? 'unknown (set account.id in the run file)'}`);
    const { delegation, grant } = grantLines(await probe(prepared, transport, accountId), runAuthNonce(run));
    out(`  delegation      ${delegation}`);
    out(`  signer grant    ${grant}`);

    const { active, balances } = await accountHoldings(prepared, owner, accountId);
    const sections: string[] = [];
    for (const market of prepared.markets) {
      const orders = active.get(market.symbol) ?? [];
      if (orders.length === 0) {
        sections.push(`    ${market.symbol}  none`);
        continue;
      }
      const rows = orders.map((order) => {
        const human = humanOrder(order);
        return [String(order.orderid), human.side, human.price.toFixed(), human.remaining.toFixed(), human.size.toFixed()];
      });
      const table = formatTable(['ORDER ID', 'SIDE', 'PRICE', 'REMAINING', 'SIZE'], rows, ['right', 'left', 'right', 'right', 'right']);
      sections.push(`    ${market.symbol}  ${orders.length} ${orders.length === 1 ? 'order' : 'orders'}\n${table.replace(/^/gm, '      ')}`);
    }
    for (const symbol of prepared.unknownMarkets) sections.push(`    ${symbol}  address not known${network.name === 'sim' ? ' (not a market of this venue)' : ' (pass --market SYMBOL=address)'}`);
    out('  balances');
    out(balanceTable(balances).replace(/^/gm, '    '));
    out('  open orders');
    for (const section of sections) out(section);
    return ExitCode.ok;
  } finally {
    await stop();
  }
}

// ---- balances ---------------------------------------------------------------------------------

async function runBalances(args: readonly string[], io: CliIo, secrets: Set<string>): Promise<number> {
  const { values } = parseCommandArgs(args, { command: 'account balances', options: { ...commonOptions, 'account-core': { type: 'string' }, json: { type: 'boolean' } }, positionals: [] });
  const prepared = await prepare(io, values, secrets);
  const owner = prepared.run.account.owner ?? prepared.wallet.address;
  const accountId = await accountIdOf(prepared, owner);
  const { balances } = await accountHoldings(prepared, owner, accountId);
  if (values.json === true) {
    const json = {
      network: prepared.network.name,
      accountId: accountId?.toString() ?? null,
      balances: balances.map((row) => ({
        token: row.token,
        address: row.address ?? null,
        free: row.free?.toFixed() ?? null,
        locked: row.locked.toFixed(),
        total: row.free === undefined ? null : row.free.add(row.locked).toFixed(),
        ...(row.note === undefined ? {} : { note: row.note }),
      })),
    };
    io.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    io.stdout.write(`balances of account ${accountId ?? '(id not known)'} on ${prepared.network.name} (free: the chain's account core; locked: the open orders)\n`);
    io.stdout.write(`${balanceTable(balances)}\n`);
  }
  return balances.some((row) => row.free === undefined) ? ExitCode.failure : ExitCode.ok;
}

// ---- the command ----------------------------------------------------------------------------

/** `error` with `scrub` applied to its message (a new error of the same code when that changed it). */
function scrubbedError(error: unknown, scrub: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error;
  const message = scrub(error.message);
  if (message === error.message) return error;
  if (error instanceof BaseError) return new BaseError(error.code, message, { details: error.details });
  return Object.assign(new Error(message), { name: error.name });
}

async function runAccount(args: readonly string[], io: CliIo): Promise<number> {
  // The run file's values from the environment (e.g. an API key in a host's path, `https://rpc.example/${PROJECT}`)
  // never reach the terminal: not in a header naming the relay, nor in a client's error naming a URL.
  const secrets = new Set<string>();
  const scrub = (text: string) => scrubKnownSecrets(text, secrets);
  const scrubbed: CliIo = { ...io, stdout: { write: (text) => io.stdout.write(scrub(text)) }, stderr: { write: (text) => io.stderr.write(scrub(text)) } };
  const [action, ...rest] = args;
  try {
    if (action === 'setup') return await runSetup(rest, scrubbed, secrets);
    if (action === 'status') return await runStatus(rest, scrubbed, secrets);
    if (action === 'balances') return await runBalances(rest, scrubbed, secrets);
  } catch (error) {
    throw scrubbedError(error, scrub);
  }
  throw usageError(action === undefined ? 'expected setup, status or balances' : `unknown action ${JSON.stringify(action.slice(0, 20))}: expected setup, status or balances`);
}

export const accountCommand: Command = {
  name: 'account',
  summary: 'set up the trading wallet for its account (EIP-7702 delegation, TRADE grant), show its status or its balances',
  usage,
  run: runAccount,
};
