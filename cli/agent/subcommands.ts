/** The subcommands of the grouped fast commands (the error label names a known one). */
export const MAIL_SUBCOMMANDS = [
  'send',
  'inbox',
  'check',
  'read',
  'peek',
  'reply',
  'archive',
  'delete',
  'mark-read',
  'mark-unread',
  'count',
];
export const CONVOY_SUBCOMMANDS = ['create', 'list', 'status', 'show', 'close', 'check'];
export const RUNTIME_SUBCOMMANDS = ['drain', 'undrain', 'drain-check', 'drain-ack', 'request-restart'];
export const SESSION_FAST_SUBCOMMANDS = ['peek', 'nudge'];
export const NUDGE_SUBCOMMANDS = ['status', 'drain'];
