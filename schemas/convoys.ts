import { Type, type Static } from 'typebox';
import { BeadSchema } from './beads.ts';
import { blockingQueryProperties, nullableArray, pagingQueryProperties } from './beadsCommon.ts';

/** `POST /convoys` body. */
export const ConvoyCreateBodySchema = Type.Object(
  {
    title: Type.String({ minLength: 1, description: 'Convoy title.' }),
    items: Type.Optional(nullableArray(Type.String(), { description: 'Bead IDs to include.' })),
    rig: Type.Optional(Type.String({ description: 'Rig name.' })),
  },
  { additionalProperties: false },
);
export type ConvoyCreateBody = Static<typeof ConvoyCreateBodySchema>;

/** `POST /convoy/{id}/add` and `/remove` body. */
export const ConvoyItemsBodySchema = Type.Object(
  { items: Type.Optional(nullableArray(Type.String(), { description: 'Bead IDs.' })) },
  { additionalProperties: false },
);
export type ConvoyItemsBody = Static<typeof ConvoyItemsBodySchema>;

/** `GET /convoys` query. */
export const ConvoyListQuerySchema = Type.Object(
  { ...blockingQueryProperties, ...pagingQueryProperties },
  { additionalProperties: false },
);
export type ConvoyListQuery = Static<typeof ConvoyListQuerySchema>;

/** Child bead progress of a convoy. */
export const ConvoyProgressSchema = Type.Object(
  {
    total: Type.Integer({ description: 'Total child bead count.' }),
    closed: Type.Integer({ description: 'Closed child bead count.' }),
  },
  { additionalProperties: false },
);
export type ConvoyProgress = Static<typeof ConvoyProgressSchema>;

/** `GET /convoy/{id}`. */
export const ConvoyGetResponseSchema = Type.Object(
  {
    convoy: Type.Optional(BeadSchema),
    children: Type.Optional(nullableArray(BeadSchema)),
    progress: Type.Optional(ConvoyProgressSchema),
  },
  { additionalProperties: false },
);
export type ConvoyGetResponse = Static<typeof ConvoyGetResponseSchema>;

/** `GET /convoy/{id}/check`. */
export const ConvoyCheckResponseSchema = Type.Object(
  {
    convoy_id: Type.String(),
    total: Type.Integer(),
    closed: Type.Integer(),
    complete: Type.Boolean({ description: 'True when all child beads are closed and total > 0.' }),
  },
  { additionalProperties: false },
);
export type ConvoyCheckResponse = Static<typeof ConvoyCheckResponseSchema>;
