import { Type, type Static } from 'typebox';

/**
 * Ours: the checks `gc doctor` asks the supervisor to run on a city (what only the supervisor can see:
 * the files it writes for sessions, what its bead store accepts). Upstream's doctor runs in-process.
 */

/** The bead types upstream's doctor requires bd's `types.custom` to hold. */
export const REQUIRED_BEAD_TYPES = [
  'molecule',
  'convoy',
  'message',
  'event',
  'gate',
  'merge-request',
  'agent',
  'role',
  'rig',
  'session',
  'spec',
  'convergence',
] as const;

export const DoctorCheckSchema = Type.Object(
  {
    name: Type.String({ description: 'The check: `shims` or `custom-types`.' }),
    status: Type.Union([Type.Literal('ok'), Type.Literal('warning'), Type.Literal('error')]),
    message: Type.String({ description: 'One line: what was found.' }),
    fixable: Type.Boolean({ description: '`POST /doctor/fix` can fix it.' }),
    fixed: Type.Optional(Type.Boolean({ description: 'Fixed by this `POST /doctor/fix`.' })),
    hint: Type.Optional(Type.String({ description: 'What to do about it.' })),
    details: Type.Optional(Type.Array(Type.String(), { description: 'More lines (`gc doctor -v`).' })),
  },
  { additionalProperties: false, title: 'DoctorCheck' },
);
export type DoctorCheck = Static<typeof DoctorCheckSchema>;

export const DoctorReportSchema = Type.Object(
  { checks: Type.Array(DoctorCheckSchema) },
  { additionalProperties: false, title: 'DoctorReport' },
);
export type DoctorReport = Static<typeof DoctorReportSchema>;
