import t from 'tap';
import type { Subscription } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournal } from '../../actors/runtime/journal/memoryJournal.ts';
import { CAUSES_KEY } from '../../schemas/eventCauses.ts';
import { eventsServer } from '../helpers/eventsServer.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

/**
 * Causal order across logs: a request's terminal event records the heads of the city log it follows from,
 * and the supervisor stream delivers it only after those, even when the city's log is slow to deliver
 * (here: held at a gate) and whether the stream reads the merged tail (head start) or by itself (resume).
 */

/** A memory log whose subscriptions deliver nothing until `open()`. */
class GatedJournal extends MemoryJournal {
  #open!: () => void;
  readonly #gate = new Promise<void>((resolve) => (this.#open = resolve));

  open(): void {
    this.#open();
  }

  override subscribe(afterSeq: number): Subscription {
    const gate = this.#gate;
    const inner = (): Subscription => super.subscribe(afterSeq);
    let sub: Subscription | undefined;
    let closed = false;
    return {
      async *[Symbol.asyncIterator]() {
        await gate;
        if (closed) return;
        sub = inner();
        yield* sub;
      },
      close: async () => {
        closed = true;
        await sub?.close();
      },
    };
  }
}

async function frames(
  sse: SseClient,
  n: number,
): Promise<Array<{ city: string; type: string; payload: unknown }>> {
  const out: Array<{ city: string; type: string; payload: unknown }> = [];
  for (let i = 0; i < n; i++)
    out.push(
      JSON.parse((await sse.nextEvent(5000)).data) as { city: string; type: string; payload: unknown },
    );
  return out;
}

for (const mode of ['head', 'resume'] as const) {
  t.test(`${mode}: request.result.city.create comes after the city's own events`, async (t) => {
    const srv = await eventsServer(t);
    srv.addCity('other');
    const sse = await openSse(`${srv.base}/v0/events/stream${mode === 'resume' ? '?after_cursor=0' : ''}`);
    t.equal(sse.status, 200);
    const city = new GatedJournal('mc');
    await city.append({ type: 'city.created', actor: 'supervisor', payload: { name: 'mc', path: '/c/mc' } });
    await city.append({ type: 'controller.started', actor: 'supervisor', subject: 'mc', payload: {} });
    srv.addCity('mc', city);
    await srv.cities.supervisorLog.append({
      type: 'request.result.city.create',
      actor: 'api',
      subject: 'mc',
      payload: { request_id: 'r1', name: 'mc', path: '/c/mc', [CAUSES_KEY]: { mc: 2 } },
    });
    city.open();
    const got = await frames(sse, 3);
    t.same(
      got.map((f) => `${f.city} ${f.type}`),
      ['mc city.created', 'mc controller.started', 'mc request.result.city.create'],
    );
    t.notOk(Object.hasOwn(got[2]!.payload as object, CAUSES_KEY), 'the causes are not on the wire');
    sse.close();
  });
}
