import { Type, type TSchema } from 'typebox';

/** One kind of SSE frame a stream writes: its `event:` name, its `data:` schema, and whether it has an `id:`. */
export interface FrameKind {
  event: string;
  data: string;
  /** The JSON type of `id:` on frames of this kind; omitted when the frame has no `id:` (heartbeats). */
  id?: 'integer' | 'string';
  idDescription?: string;
}

/**
 * The `text/event-stream` response schema of an SSE route: an array of the frames it may write, each a
 * `{id?, event, data}` object. It documents the stream; no server code validates against it.
 * This is a pure function.
 */
export function sseResponseSchema(kinds: readonly FrameKind[]): TSchema {
  return Type.Unsafe({
    title: 'Server-Sent Events',
    description:
      'The frames of the stream, in the order written; each is `id:` (events only), `event:`, `data:`.',
    type: 'array',
    items: {
      oneOf: kinds.map((k) => ({
        title: `Frame ${k.event}`,
        type: 'object',
        required: ['event', 'data'],
        properties: {
          event: { type: 'string', const: k.event, description: 'The `event:` line.' },
          data: Type.Ref(k.data),
          ...(k.id ? { id: { type: k.id, description: k.idDescription ?? 'The `id:` line.' } } : {}),
        },
      })),
    },
  });
}
