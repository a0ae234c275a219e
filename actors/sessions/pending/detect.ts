/**
 * Detects a pending approval prompt on a captured screen (pure), by the table in patterns.ts. The request id
 * is stable for one prompt and changes with the tool or its input: `tmux-` and 16 hex digits of
 * sha256(tool + input), as upstream mints it.
 */
import { createHash } from 'node:crypto';
import {
  APPROVAL_KIND,
  APPROVAL_OPTIONS,
  APPROVAL_PATTERNS,
  BOX_BORDER,
  MENU_LINES,
  PENDING_SCREEN_LINES,
  TOOL_HEADER,
} from './patterns.ts';

/** Upstream PendingInteraction. */
export interface PendingInteraction {
  request_id: string;
  kind: string;
  prompt?: string;
  options?: string[];
  metadata?: Record<string, string>;
}

/** The request id of an approval of `tool` with `input`. Pure. */
export const approvalRequestId = (tool: string, input: string): string =>
  `tmux-${createHash('sha256')
    .update(tool + input)
    .digest('hex')
    .slice(0, 16)}`;

/** The approval prompt on `screen`, or undefined. Pure. */
export function detectPending(screen: string): PendingInteraction | undefined {
  const lines = screen.replace(/\u00a0/g, ' ').split('\n');
  const recent = lines.slice(Math.max(0, lines.length - PENDING_SCREEN_LINES));
  let markerAt = -1;
  for (let i = recent.length - 1; i >= 0 && markerAt < 0; i--)
    if (APPROVAL_PATTERNS.some((p) => recent[i]!.includes(p.marker))) markerAt = i;
  if (markerAt < 0) return undefined;
  // Output below the menu: it was answered, and what is left is scrollback.
  for (const line of recent.slice(markerAt + 1)) {
    const bare = line.replace(BOX_BORDER, '');
    if (!MENU_LINES.some((re) => re.test(bare))) return undefined;
  }
  for (let i = markerAt - 1; i >= 0; i--) {
    const header = TOOL_HEADER.exec(recent[i]!);
    if (!header) continue;
    const tool = header[1]!;
    const input = header[2]!.trim();
    return {
      request_id: approvalRequestId(tool, input),
      kind: APPROVAL_KIND,
      prompt: input === '' ? `Allow ${tool}?` : `${tool}: ${input}`,
      options: [...APPROVAL_OPTIONS],
      metadata: { tool_name: tool, source: 'tmux' },
    };
  }
  return undefined;
}
