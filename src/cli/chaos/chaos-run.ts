/**
 * A chaos run (`clobbot chaos`): the reference market maker, as real `clobbot run` processes, against
 * the local venue on loopback in this process, while faults are injected at seeded random times:
 * relay WebSocket drops and 4008 closes, withheld and delayed outcomes, UNKNOWN and REJECTED
 * answers, JWT expiry, relay and market-data 5xx and 429s with Retry-After, slow answers, venue
 * restarts (the servers down, the chain going on), and SIGKILLs of the bot itself (the next process
 * recovers from its journal and the chain). At the end the bot is stopped with SIGINT and the
 * figures are computed (chaos-figures.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { interval } from 'rxjs';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { liveClock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import type { Logger } from '../../core/logger.ts';
import { seededRandom, type RandomSource } from '../../core/random.ts';
import { loadConfigOrThrow } from '../../config/load-config.ts';
import { simConfigSchema } from '../../config/sim-config.ts';
import { FAULTS_OFF, type FaultActionInput } from '../../config/fault-config.ts';
import { RELAY_PENDING_OUTCOME_LIMIT, type OutcomeStatus } from '../../protocol/constants.ts';
import type { Address, Hex } from '../../protocol/encoding.ts';
import { createSimServer } from '../../sim/sim-server.ts';
import { USED_WEIGHT_HEADER } from '../../sim/weight-limiter.ts';
import { decodeJournalLine, type JournalRecord } from '../../execution/journal-record.ts';
import { journalPath } from '../../execution/journal.ts';
import type { RelaySubmission } from '../../venue/sim-venue.ts';
import { chaosFigures, PLACING, type ChaosFigures } from './chaos-figures.ts';

export interface ChaosRunParameters {
  readonly durationMs: number;
  readonly seed: number;
  /** Where the run keeps its files (run file, key, journal, the bots' logs and summaries). */
  readonly workDir: string;
  /** bin/clobbot.js, which the bot processes run. */
  readonly cliPath: string;
  readonly simConfigPath: string;
  /** The reference run file (config/market-maker.yaml): its markets, strategy, risk and engine are the bot's. */
  readonly runFilePath: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** A line of progress (each fault, each bot start). */
  readonly progress: (line: string) => void;
}

export interface ChaosRunResult {
  readonly figures: ChaosFigures;
  /** Faults injected, by kind. */
  readonly faults: Readonly<Record<string, number>>;
  /** Problems of the run itself (a bot that would not stop, a missing summary). */
  readonly problems: readonly string[];
}


/** How long the last bot may take to stop after SIGINT before it is killed. */
const STOP_GRACE_MS = 40_000;
/** No fault in the last stretch of the run: the stop is measured on a calm venue. */
const CALM_END_MS = 4_000;

type Fault = { readonly kind: string; readonly weight: number };

const FAULTS: readonly Fault[] = [
  { kind: 'drop-connections', weight: 3 },
  { kind: 'close-pending-outcome-limit', weight: 2 },
  { kind: 'expire-tokens', weight: 2 },
  { kind: 'withhold-outcomes', weight: 2 },
  { kind: 'delay-outcomes', weight: 2 },
  { kind: 'answer-unknown', weight: 2 },
  { kind: 'answer-rejected', weight: 2 },
  { kind: 'rate-limit-relay', weight: 1 },
  { kind: 'fail-relay', weight: 1 },
  { kind: 'fail-market-data', weight: 2 },
  { kind: 'rate-limit-market-data', weight: 2 },
  { kind: 'slow-answers', weight: 2 },
  { kind: 'venue-restart', weight: 1 },
  { kind: 'bot-sigkill', weight: 2 },
];

/** The faults a run always meets early, whatever its seed: they are the ones a bot most often gets wrong. */
const EARLY = ['bot-sigkill', 'venue-restart'];
const EARLY_WITHIN = 5;

/**
 * The order of the faults: every kind once (shuffled, with the restarts among the first five, so a
 * short run has them), then draws by weight.
 */
function faultSequence(random: RandomSource): () => Fault {
  const deck = [...FAULTS];
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [deck[i], deck[j]] = [deck[j]!, deck[i]!];
  }
  EARLY.forEach((kind, n) => {
    const at = deck.findIndex((fault) => fault.kind === kind);
    const to = n + Math.floor(random.next() * (EARLY_WITHIN - EARLY.length));
    if (at >= EARLY_WITHIN) [deck[at], deck[to]] = [deck[to]!, deck[at]!];
  });
  const total = FAULTS.reduce((sum, fault) => sum + fault.weight, 0);
  return () => {
    const next = deck.shift();
    if (next !== undefined) return next;
    let draw = random.next() * total;
    for (const fault of FAULTS) {
      draw -= fault.weight;
      if (draw < 0) return fault;
    }
    return FAULTS[FAULTS.length - 1]!;
  };
}

const ACTIONS: Readonly<Record<string, FaultActionInput>> = {
  'drop-connections': { action: 'drop-connections' },
  'close-pending-outcome-limit': { action: 'close-pending-outcome-limit' },
  'expire-tokens': { action: 'expire-tokens' },
  'withhold-outcomes': { action: 'withhold-outcomes', count: 2 },
  'delay-outcomes': { action: 'delay-outcomes', count: 3, delayMs: 2_000 },
  'answer-unknown': { action: 'answer-unknown', count: 2 },
  'answer-rejected': { action: 'answer-rejected', count: 2 },
  'rate-limit-relay': { action: 'rate-limit-relay', count: 1, retryAfterSec: 1 },
  'fail-relay': { action: 'fail-relay', count: 1, status: 503 },
  'fail-market-data': { action: 'fail-market-data', count: 3 },
  'rate-limit-market-data': { action: 'rate-limit-market-data', count: 2, retryAfterSec: 1 },
};

const clock = liveClock;
const sleep = (ms: number) => new Promise<void>((resolve) => clock.scheduler.schedule(() => resolve(), ms));

/**
 * The reference run file against the venue at `venueUrl`, with a key file (the same wallet for every
 * process), its strategy module by absolute path, until stopped, and logging only warnings. Its kill
 * switch is left out: the faults are injected on purpose, and a tripped switch would stop the run
 * the figures are about.
 */
function chaosRunFile(path: string, where: { readonly venueUrl: string; readonly simConfig: string; readonly keyPath: string }): string {
  const doc = parseDocument(readFileSync(path, 'utf8'));
  doc.set('venueUrl', where.venueUrl);
  doc.set('simConfig', where.simConfig);
  doc.set('wallet', { privateKeyFile: where.keyPath });
  doc.delete('duration');
  doc.deleteIn(['risk', 'killSwitch']);
  doc.setIn(['logging', 'level'], 'warn');
  const strategies = doc.get('strategies') as YAMLSeq<YAMLMap>;
  // Its modules are named from the project root (config/..), as `npm start` runs it.
  for (const strategy of strategies.items) strategy.set('module', resolve(dirname(path), '..', String(strategy.get('module'))));
  return doc.toString();
}

/** The bot's key: the same for every process of the run, from the seed (a test key, valid nowhere else). */
function chaosKey(seed: number): Hex {
  return keccak256(toHex(`clobbot chaos ${seed}`));
}

/** Every complete line of the journal file, decoded (a torn last line is left for the next read). */
function readJournal(path: string, into: Map<string, JournalRecord>): void {
  if (!existsSync(path)) return;
  const text = readFileSync(path, 'utf8');
  const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
  lines.forEach((line, index) => {
    if (line === '') return;
    const record = decodeJournalLine(line, { path, lineNumber: index + 1 });
    into.set(`${record.seq}:${record.kind}:${'requestId' in record ? record.requestId : ''}`, record);
  });
}

/**
 * @example const { figures } = await runChaos({ durationMs: 30_000, seed: 1, workDir, cliPath, simConfigPath, runFilePath, env, logger, progress });
 */
export async function runChaos(params: ChaosRunParameters): Promise<ChaosRunResult> {
  const { seed, workDir, progress } = params;
  const random = seededRandom(seed);
  const problems: string[] = [];
  const sim = await loadConfigOrThrow(params.simConfigPath, simConfigSchema, { env: params.env });
  let violations = 0;
  const server = createSimServer({
    config: { ...sim, faults: { ...FAULTS_OFF } },
    clock,
    random: seededRandom(seed ^ 0x5151),
    logger: params.logger,
    backgroundFlow: true,
    seed,
    // A 429 over the market-data weight budget is the bot's own doing; the injected ones are within it.
    onAnswer: (_request, answer) => {
      if (answer.status === 429 && Number(answer.headers[USED_WEIGHT_HEADER] ?? 0) > sim.marketData.weightPerMinute) violations++;
    },
  });
  const { url } = await server.start({ port: 0 });
  const model = server.venue;

  mkdirSync(workDir, { recursive: true });
  const key = chaosKey(seed);
  const wallet = privateKeyToAccount(key).address.toLowerCase() as Address;
  const keyPath = join(workDir, 'bot.key');
  writeFileSync(keyPath, `${key}\n`, { mode: 0o600 });
  const journalDir = join(workDir, 'journal');
  const runFile = join(workDir, 'chaos.yaml');
  writeFileSync(runFile, chaosRunFile(params.runFilePath, { venueUrl: url, simConfig: params.simConfigPath, keyPath }));
  const journalFile = journalPath({ dir: journalDir, network: 'sim', wallet });

  const submissions: RelaySubmission[] = [];
  const outcomes = new Map<Hex, OutcomeStatus>();
  const baseline = new Map<Address, bigint>();
  const market = model.info().markets.find((spec) => spec.symbol === 'MON_USDC')!;
  const subscriptions = [
    model.submissions$.subscribe((submission) => {
      if (submission.wallet !== wallet) return;
      // At its first placement (not the set-up's refused probe) the account is funded and set up, and
      // nothing of it has traded yet (the placement executes in a later block): the base it held then.
      const accountId = model.accountOf(wallet);
      if (baseline.size === 0 && accountId !== undefined && PLACING.has(submission.method) && submission.result.status === 'BROADCAST') {
        const balance = model.balance(accountId, market.baseToken.address);
        baseline.set(market.baseToken.address, balance.available + balance.locked);
      }
      submissions.push(submission);
    }),
    model.outcomes$.subscribe((outcome) => outcomes.set(outcome.txHash, outcome.status)),
  ];

  const journal = new Map<string, JournalRecord>();
  const tail = interval(200, clock.scheduler).subscribe(() => {
    try {
      readJournal(journalFile, journal);
    } catch (error) {
      problems.push(`journal unreadable: ${error instanceof Error ? error.message : String(error)}`);
    }
  });

  let processes = 0;
  let bot: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  const summaryOf = (n: number) => join(workDir, `summary-${n}.json`);
  const startBot = () => {
    processes += 1;
    const n = processes;
    const log = openSync(join(workDir, `bot-${n}.log`), 'w');
    const child = spawn(process.execPath, [params.cliPath, 'run', runFile, '--journal-dir', journalDir, '--summary', summaryOf(n), '--seed', String(seed + n)], {
      env: { ...params.env } as NodeJS.ProcessEnv,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    bot = child;
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    progress(`bot process ${n} started (pid ${child.pid})`);
  };
  const quoting = () => submissions.some((submission) => submission.result.status === 'BROADCAST' && PLACING.has(submission.method));

  const nextFault = faultSequence(random);
  const counts: Record<string, number> = {};
  const faultTimes: number[] = [];
  const startedAt = clock.now();
  const endAt = startedAt + params.durationMs;
  try {
    startBot();
    while (!quoting() && clock.now() < endAt) await sleep(100);
    if (!quoting()) problems.push('the bot never quoted');
    while (clock.now() < endAt - CALM_END_MS) {
      await sleep(1_500 + Math.floor(random.next() * 2_500));
      if (clock.now() >= endAt - CALM_END_MS) break;
      const fault = nextFault();
      counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
      faultTimes.push(clock.now());
      progress(`${((clock.now() - startedAt) / 1000).toFixed(1).padStart(6)} s  ${fault.kind}`);
      switch (fault.kind) {
        case 'bot-sigkill':
          bot?.kill('SIGKILL');
          await exited;
          await sleep(200 + Math.floor(random.next() * 800));
          startBot();
          break;
        case 'venue-restart':
          await server.restart({ downMs: 1_000 + Math.floor(random.next() * 2_000) });
          break;
        case 'slow-answers':
          server.faults.set({ ...server.faults.get(), relayDelayMs: 600, marketDataDelayMs: 400 });
          clock.scheduler.schedule(() => server.faults.set({ ...server.faults.get(), relayDelayMs: 0, marketDataDelayMs: 0 }), 3_000);
          break;
        default:
          server.faults.apply(ACTIONS[fault.kind]!);
      }
    }
    server.faults.set({ ...FAULTS_OFF });
    while (clock.now() < endAt) await sleep(100);
    bot?.kill('SIGINT');
    const stopped = await Promise.race([exited, sleep(STOP_GRACE_MS).then(() => 'timeout' as const)]);
    if (stopped === 'timeout') {
      problems.push(`the last bot did not stop within ${STOP_GRACE_MS / 1000} s of SIGINT: killed`);
      bot?.kill('SIGKILL');
      await exited;
    } else if (stopped !== 0) {
      problems.push(`the last bot exited ${stopped} (its log: ${join(workDir, `bot-${processes}.log`)})`);
    }
    // The last outcomes of the stop reach the subscriptions before the figures.
    await sleep(500);
    readJournal(journalFile, journal);
  } finally {
    tail.unsubscribe();
    if (bot !== undefined && bot.exitCode === null && bot.signalCode === null) bot.kill('SIGKILL');
    for (const subscription of subscriptions) subscription.unsubscribe();
  }

  const accountId = model.accountOf(wallet);
  const openAfterStop = accountId === undefined ? 0 : model.openOrders(accountId, market.address).length;
  let positionMismatches = 0;
  const summaryPath = summaryOf(processes);
  if (!existsSync(summaryPath) || accountId === undefined) {
    positionMismatches = 1;
    problems.push(`no summary of the last bot (${summaryPath}): its position cannot be compared`);
  } else {
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as { markets: { symbol: string; position: string }[] };
    const botPosition = summary.markets.find((entry) => entry.symbol === market.symbol)?.position ?? '0';
    const botRaw = BigInt(new Decimal(botPosition).mul(new Decimal(10).pow(market.baseToken.decimals)).toFixed(0));
    const held = model.balance(accountId, market.baseToken.address);
    const venueRaw = held.available + held.locked - (baseline.get(market.baseToken.address) ?? 0n);
    if (botRaw !== venueRaw) {
      positionMismatches = 1;
      problems.push(`position: the bot says ${botPosition} MON, the venue's balances ${new Decimal(venueRaw.toString()).div(new Decimal(10).pow(market.baseToken.decimals)).toFixed()} MON`);
    }
  }
  const stats = server.relayWs.walletStats(wallet);
  await server.stop();

  const figures = chaosFigures({
    journal: [...journal.values()],
    submissions,
    outcomes,
    faultTimes,
    maxPendingOutcomes: stats.maxPendingOutcomes,
    cap: RELAY_PENDING_OUTCOME_LIMIT,
    reconnects: Math.max(0, stats.accepted - processes),
    restarts: processes - 1,
    rateLimitViolations: violations,
    openOrdersAfterStop: openAfterStop,
    positionMismatches,
  });
  return { figures, faults: counts, problems };
}
