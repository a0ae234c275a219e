import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import type { AppDeps } from '../deps.ts';
import { streamRegistry } from '../sse/registry.ts';
import type { SseWriterOptions } from '../sse/writer.ts';

/**
 * Serializes event bodies with `JSON.stringify` instead of a compiled fast-json-stringify serializer: the
 * typed unions have 70 variants each, which that serializer would have to try one by one per item, and our
 * bodies are built from the same schemas already (the wire projection in `events/wire.ts`).
 */
export const jsonSerializer: FastifySerializerCompiler<unknown> = () => (data) => JSON.stringify(data);

/** The writer options of a stream opened by the app over `deps`. */
export const streamOptions = (deps: AppDeps): SseWriterOptions => ({
  heartbeatMs: deps.config.heartbeatMs,
  ...streamRegistry(deps).limits,
});
