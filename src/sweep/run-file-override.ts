/**
 * A combination's run file: the run file's text with the swept fields set, everything else (comments,
 * `${NAME}` references, layout) as written. A value takes the type of the value it replaces, so a
 * quoted decimal (`size: "2000"`) stays a string; a field the run file does not set takes the value
 * as YAML reads it (`4` a number, `mid` a string, `true` a boolean).
 */
import { isScalar, parseDocument, type Scalar } from 'yaml';
import { BaseError } from '../core/base-error.ts';
import { formatConfigPath, type ConfigPath } from '../config/config-issue.ts';

export interface RunFileOverride {
  /** The param as written on the command line, for messages. */
  readonly name: string;
  readonly path: ConfigPath;
  readonly value: string;
}

/**
 * @example overrideRunFile('risk:\n  maxPosition: "50000"\n', [{ name: 'risk.maxPosition', path: ['risk', 'maxPosition'], value: '100' }]) // 'risk:\n  maxPosition: "100"\n'
 */
export function overrideRunFile(text: string, overrides: readonly RunFileOverride[]): string {
  const document = parseDocument(text, { intAsBigInt: true });
  for (const { name, path, value } of overrides) {
    const existing = document.getIn(path, true);
    const node = parseDocument(value, { intAsBigInt: true }).contents;
    // A scalar keeps its node (its comment, its quotes): only its value changes.
    if (isScalar(existing) && (typeof existing.value === 'string' || isScalar(node))) {
      existing.value = typeof existing.value === 'string' ? value : (node as Scalar).value;
      continue;
    }
    try {
      document.setIn(path, node);
    } catch (cause) {
      // Only a path through a value that is not a map or a list gets here.
      throw new BaseError('SWEEP_PARAM_INVALID', `sweep: --param ${name}: the run file has no field ${formatConfigPath(path)} (a part of the path is not a map)`, {
        details: { param: name, path: [...path] },
        cause,
      });
    }
  }
  return document.toString();
}
