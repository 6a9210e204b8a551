/**
 * The venue's revert reason, `CODE: message` (docs/protocol.md), read once here: nothing else
 * learns a code from a reason's text.
 */

import type { RelayErrorCodeName } from './constants.ts';
import { isKnownRelayErrorCode } from './relay-response.ts';

export interface RevertReason {
  /** The relay error code before the first `: `, or null when the text starts with no known code. */
  readonly code: RelayErrorCodeName | null;
  /** The text after `CODE: `, or the whole text when it carries no known code ('' for no reason). */
  readonly message: string;
}

/**
 * @example parseRevertReason('INVALID_ORDER: order 0: post-only order would cross the book') // { code: 'INVALID_ORDER', message: 'order 0: post-only order would cross the book' }
 * @example parseRevertReason('the receipt says reverted') // { code: null, message: 'the receipt says reverted' }
 */
export function parseRevertReason(reason: string | null): RevertReason {
  if (reason === null) return { code: null, message: '' };
  const colon = reason.indexOf(': ');
  const code = colon < 0 ? '' : reason.slice(0, colon);
  return isKnownRelayErrorCode(code) ? { code, message: reason.slice(colon + 2) } : { code: null, message: reason };
}
