import { Type } from 'typebox';

/**
 * The opt-in to our additions on an answer whose upstream schema is closed (`additionalProperties: false`):
 * by default the answer is upstream's exactly, so strict clients validate it; `?extras=true` adds ours.
 */
export const EXTRAS = {
  extras: Type.Optional(
    Type.Boolean({
      description: 'Ours: add this server’s extra fields (absent from upstream’s closed schema).',
    }),
  ),
};

export const ExtrasQuery = Type.Object(EXTRAS, { additionalProperties: false });
