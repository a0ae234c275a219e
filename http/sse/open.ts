import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { StreamRegistry } from './registry.ts';
import { SseWriter, type SseWriterOptions } from './writer.ts';

/**
 * Takes the response over from Fastify and commits the stream's 200: the headers Fastify's hooks already
 * set (X-GC-Request-Id, CORS) plus the SSE ones, flushed at once. Call it only after every setup check, so
 * setup errors are still Problem Details. The writer is tracked by `registry` until it closes.
 */
export function openEventStream(
  reply: FastifyReply,
  registry: StreamRegistry,
  options: SseWriterOptions,
): SseWriter {
  const headers = reply.getHeaders() as OutgoingHttpHeaders;
  reply.hijack();
  const writer = new SseWriter(reply.raw, options);
  registry.add(writer);
  writer.open(headers);
  return writer;
}
