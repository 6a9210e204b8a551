/**
 * `clobbot validate <file> [--kind run|sim]`: checks a config file without running anything. A run
 * file is checked as `clobbot run` checks it before connecting: its schema, `runFileIssues`, then
 * `checkRunFileBeforeNetwork` (strategy modules and params, key source, sim config and markets).
 * Valid: exit 0 and one summary line on stdout. Invalid: exit 2 and every located problem on stderr.
 */
import { BaseError } from '../../core/base-error.ts';
import { CONFIG_KINDS, configSchemas, inferConfigKind, type ConfigKind } from '../../config/config-kind.ts';
import { formatConfigIssue, type ConfigIssue } from '../../config/config-issue.ts';
import { validateYamlSource } from '../../config/load-config.ts';
import { runMarketSymbol, type RunConfig } from '../../config/run-config.ts';
import type { SimConfig } from '../../config/sim-config.ts';
import { readYamlSource } from '../../config/yaml-source.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { DEFAULT_SIM_CONFIG } from '../run/default-sim-config.ts';

const LABELS: Readonly<Record<ConfigKind, string>> = { run: 'run file', sim: 'sim config' };

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `network sim, 1 strategy, markets MON_USDC` */
export function summarizeRunConfig(config: RunConfig): string {
  const strategies = `${config.strategies.length} ${config.strategies.length === 1 ? 'strategy' : 'strategies'}`;
  return `network ${config.network}, ${strategies}, markets ${config.markets.map(runMarketSymbol).join(', ')}`;
}

/** `chain 31337, 3 tokens, markets MON_USDC, WETH_USDC` */
export function summarizeSimConfig(config: SimConfig): string {
  return `chain ${config.chainId}, ${plural(config.tokens.length, 'token')}, markets ${config.markets.map((market) => market.symbol).join(', ')}`;
}

function reportIssues(io: CliIo, file: string, issues: readonly ConfigIssue[], what: string): number {
  for (const issue of issues) io.stderr.write(`${formatConfigIssue(issue)}\n`);
  io.stderr.write(`${file}: ${what} (${plural(issues.length, 'problem')})\n`);
  return ExitCode.usage;
}

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a run file or sim config and print its problems with file:line:column',
  usage: [
    'clobbot validate <file> [--kind run|sim]',
    '',
    '  --kind run|sim   the kind of file; default: a top-level `strategies` key means run,',
    '                   `markets` with `tokens` means sim',
    '',
    'Exit 0 with a one-line summary when the file is valid; exit 2 with every problem otherwise.',
  ].join('\n'),

  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      command: 'validate',
      options: { kind: { type: 'string' } },
      positionals: ['file'],
    });
    const file = positionals[0]!;
    let kind: ConfigKind | undefined;
    if (values.kind !== undefined) {
      if (!(CONFIG_KINDS as readonly string[]).includes(values.kind)) {
        throw new BaseError('CLI_USAGE', `validate: --kind must be one of ${CONFIG_KINDS.join(', ')}`, { details: { command: 'validate' } });
      }
      kind = values.kind as ConfigKind;
    }

    const read = await readYamlSource(file, { env: io.env });
    if (!read.ok) return reportIssues(io, file, read.issues, 'not a valid config file');
    kind ??= inferConfigKind(read.source.data);
    if (kind === undefined) {
      return reportIssues(
        io,
        file,
        [
          {
            kind: 'schema',
            file,
            line: 1,
            column: 1,
            path: [],
            message: 'cannot tell the kind of file: a run file has `strategies`, a sim config has `markets` and `tokens`; or pass --kind run|sim',
          },
        ],
        'unknown kind of config file',
      );
    }

    const label = LABELS[kind];
    if (kind === 'run') {
      const result = validateYamlSource(read.source, configSchemas.run);
      if (!result.ok) return reportIssues(io, file, result.issues, `invalid ${label}`);
      // Loaded here, not at the top: a sim config needs none of it (strategy loading, key sources).
      const { checkRunFileBeforeNetwork, runFileIssues } = await import('../run/run-file-issues.ts');
      // What `clobbot run` checks beyond the schema (account.id off the sim, the markets given whole).
      const more = runFileIssues(read.source, result.value);
      if (more.length > 0) return reportIssues(io, file, more, `invalid ${label}`);
      // Then what `clobbot run` checks before it touches a network, throwing the run's own errors
      // (printed by main as `error CODE: …`, exit 2): strategy modules and their params, the key
      // source, the sim config and its markets.
      await checkRunFileBeforeNetwork(read.source, result.value, { env: io.env, cwd: process.cwd(), network: result.value.network, defaultSimConfig: DEFAULT_SIM_CONFIG });
      io.stdout.write(`${file}: valid ${label} (${summarizeRunConfig(result.value)})\n`);
    } else {
      const result = validateYamlSource(read.source, configSchemas.sim);
      if (!result.ok) return reportIssues(io, file, result.issues, `invalid ${label}`);
      io.stdout.write(`${file}: valid ${label} (${summarizeSimConfig(result.value)})\n`);
    }
    return ExitCode.ok;
  },
};
