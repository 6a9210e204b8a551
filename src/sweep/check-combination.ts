/**
 * A combination's run file passes the checks the run file itself passed, before any run starts: the
 * run file's schema (src/config/run-config.ts) and each strategy's own params schema. A param that
 * names no field, or a value a schema refuses, is SWEEP_PARAM_INVALID naming the param and value.
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { configErrorMap } from '../config/config-error-map.ts';
import { formatConfigPath, type ConfigPath } from '../config/config-issue.ts';
import type { Env } from '../config/env-interpolation.ts';
import { runConfigSchema } from '../config/run-config.ts';
import { parseYamlSource } from '../config/yaml-source.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { RunFileOverride } from './run-file-override.ts';

interface Problem {
  readonly path: ConfigPath;
  readonly message: string;
  /** The key a strict schema does not know (the problem is then the path's, not the value's). */
  readonly unknownKey?: string;
}

const startsWith = (path: ConfigPath, prefix: ConfigPath) => prefix.length <= path.length && prefix.every((segment, i) => String(path[i]) === String(segment));

function problemsOf(schema: z.ZodType, value: unknown, at: ConfigPath): Problem[] {
  const parsed = schema.safeParse(value, { error: configErrorMap });
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue): Problem[] => {
    const path = [...at, ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))];
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key], message: issue.message, unknownKey: key }));
    return [{ path, message: issue.message }];
  });
}

/**
 * Throws SWEEP_PARAM_INVALID when the combination's run file `text` fails a schema. `strategies` are
 * the definitions of the run file's strategies, by index.
 *
 * @example checkCombination({ file: 'config/mm.yaml', text, overrides, strategies: [definition], env: {} });
 */
export function checkCombination(params: {
  readonly file: string;
  readonly text: string;
  readonly overrides: readonly RunFileOverride[];
  readonly strategies: readonly StrategyDefinition[];
  readonly env: Env;
}): void {
  const { overrides } = params;
  const parsed = parseYamlSource(params.text, { file: params.file, env: params.env });
  // The run file itself parsed: only a value can break the text, and overrideRunFile writes values YAML reads back.
  if (!parsed.ok) throw new BaseError('SWEEP_PARAM_INVALID', `sweep: ${describe(overrides)}: ${parsed.issues.map((issue) => issue.message).join('; ')}`, { details: { params: values(overrides) } });
  const data = parsed.source.data as { strategies?: { params?: unknown }[] };
  const problems = problemsOf(runConfigSchema, data, []);
  for (const [index, definition] of params.strategies.entries()) {
    problems.push(...problemsOf(z.preprocess((value) => value ?? {}, definition.params), data.strategies?.[index]?.params, ['strategies', index, 'params']));
  }
  if (problems.length === 0) return;
  const unknown = overrides.find((override) => problems.some((problem) => problem.unknownKey !== undefined && startsWith(override.path, problem.path)));
  if (unknown !== undefined) {
    const problem = problems.find((candidate) => candidate.unknownKey !== undefined && startsWith(unknown.path, candidate.path))!;
    throw new BaseError('SWEEP_PARAM_INVALID', `sweep: --param ${unknown.name}: ${params.file} has no field ${formatConfigPath(problem.path)}: ${problem.message}`, {
      details: { param: unknown.name, path: [...unknown.path] },
    });
  }
  const lines = problems.map((problem) => {
    const culprits = overrides.filter((override) => startsWith(override.path, problem.path) || startsWith(problem.path, override.path));
    return `  ${describe(culprits.length > 0 ? culprits : overrides)}: ${formatConfigPath(problem.path)}: ${problem.message}`;
  });
  throw new BaseError('SWEEP_PARAM_INVALID', `sweep: a combination of ${params.file} is invalid (${describe(overrides)}):\n${lines.join('\n')}`, {
    details: { params: values(overrides), problems: problems.map((problem) => ({ path: [...problem.path], message: problem.message })) },
  });
}

const describe = (overrides: readonly RunFileOverride[]) => overrides.map((override) => `${override.name}=${override.value}`).join(', ');
const values = (overrides: readonly RunFileOverride[]) => Object.fromEntries(overrides.map((override) => [override.name, override.value]));
