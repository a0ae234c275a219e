import t, { type Test } from 'tap';
import { AGENT_SERVICE } from '../../actors/agents/agentApi.ts';
import { MAYOR, RecordingAgents } from '../helpers/recordingAgents.ts';
import { formulaHarness, REVIEW, type FormulaHarness } from './helpers.ts';

/**
 * POST /sling over a real socket: a bead routed to an agent or pool (direct), a formula launched
 * standalone or attached to a bead, each one batch; upstream's body checks and every refusal write
 * nothing.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
type Json = any;

async function served(t: Test): Promise<{
  h: FormulaHarness;
  sling: (body: unknown) => Promise<{ status: number; body: Json }>;
}> {
  const h = await formulaHarness(t);
  await h.formula('mol-review.toml', REVIEW);
  await h.formula('loop.toml', '[[steps]]\nid = "a"\nneeds = ["b"]\n[[steps]]\nid = "b"\nneeds = ["a"]\n');
  // The agent service lists its templates (agents and pools); instances are looked up one by one.
  const agents = Object.assign(new RecordingAgents(), {
    templates: () => ['mayor', 'worker', 'rig1/worker'].map((qualified) => ({ qualified })),
  });
  agents.views.set('worker-1', { ...MAYOR, name: 'worker-1', pool: 'worker' });
  h.attach({ [AGENT_SERVICE]: agents });
  const url = `${await h.app.listen({ port: 0, host: '127.0.0.1' })}${h.base}/sling`;
  const sling = async (body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  return { h, sling };
}

const bead = (h: FormulaHarness, id: string) => h.beads.service.model.beads.get(id)?.bead;

t.test('a bead slung to a pool: routed, in its own convoy, one batch; again changes nothing', async (t) => {
  const { h, sling } = await served(t);
  const { id } = (await h.beads.service.create({ title: 'fix it' })).bead;
  const before = (await h.events()).length;
  const res = await sling({ target: 'worker', bead: id });
  t.equal(res.status, 200);
  t.same(res.body, { status: 'slung', target: 'worker', mode: 'direct', bead: id });
  const events = (await h.events()).slice(before);
  t.same(
    events.map((e) => e.type),
    ['bead.created', 'bead.updated', 'convoy.created'],
  );
  t.equal(new Set(events.map((e) => e.ts)).size, 1, 'one decision');
  const routed = bead(h, id)!;
  t.equal(routed.metadata?.['gc.routed_to'], 'worker');
  const convoy = bead(h, routed.parent!)!;
  t.match(convoy, { title: `sling-${id}`, issue_type: 'convoy', status: 'open' });
  const again = await sling({ target: 'worker', bead: id });
  t.equal(again.status, 200);
  t.same(again.body.warnings, [`bead ${id} is already routed to worker; nothing changed`]);
  t.equal((await h.events()).length, before + 3, 'nothing written the second time');
  const instance = await sling({ target: 'worker-1', bead: id });
  t.same([instance.status, instance.body.target], [200, 'worker-1'], 'a pool instance');
  t.equal(bead(h, id)!.parent, convoy.id, 'rerouted, still in its convoy');
  t.equal(bead(h, id)!.metadata?.['gc.routed_to'], 'worker-1');
  const rig = await sling({ target: 'worker', rig: 'rig1', bead: id });
  t.equal(rig.body.target, 'rig1/worker', 'a bare target in a rig context is the rig’s agent first');
});

t.test('a formula launched standalone or onto a bead; a second launch on it is a conflict', async (t) => {
  const { h, sling } = await served(t);
  const before = (await h.events()).length;
  const res = await sling({ target: 'worker', formula: 'mol-review', vars: { target: 'PR-1' }, title: 'R1' });
  t.equal(res.status, 201, JSON.stringify(res.body));
  const root = res.body.root_bead_id as string;
  t.same(res.body, {
    status: 'slung',
    target: 'worker',
    mode: 'standalone',
    formula: 'mol-review',
    workflow_id: root,
    root_bead_id: root,
  });
  t.match(bead(h, root), {
    title: 'R1',
    status: 'in_progress',
    metadata: { 'gc.kind': 'workflow', 'gc.routed_to': 'worker', 'gc.run_target': 'worker' },
  });
  const events = (await h.events()).slice(before);
  t.same(
    events.map((e) => e.type),
    ['bead.created', 'bead.created', 'bead.created', 'bead.created', 'bead.updated'],
    'root, three steps and the root under way: one batch',
  );
  t.equal(new Set(events.map((e) => e.ts)).size, 1);

  const { id } = (await h.beads.service.create({ title: 'review PR-2' })).bead;
  const attached = await sling({
    target: 'worker',
    formula: 'mol-review',
    attached_bead_id: id,
    vars: { target: 'PR-2' },
  });
  t.equal(attached.status, 201);
  t.match(attached.body, { mode: 'attached', attached_bead_id: id });
  const wf = attached.body.workflow_id as string;
  t.equal(bead(h, wf)!.metadata?.['gc.source_bead_id'], id);
  t.equal(bead(h, id)!.metadata?.workflow_id, wf);
  const head = (await h.events()).length;
  const conflict = await sling({
    target: 'worker',
    formula: 'mol-review',
    attached_bead_id: id,
    vars: { target: 'x' },
  });
  t.equal(conflict.status, 409);
  t.match(conflict.body.detail, new RegExp(`^conflict: bead ${id} already has a live workflow ${wf}`));
  t.same(conflict.body.errors, [
    {
      location: 'body.attached_bead_id',
      message: `blocking workflow ${wf}; retry with force to launch another`,
      value: wf,
    },
  ]);
  t.equal((await h.events()).length, head, 'nothing written');
  const forced = await sling({
    target: 'worker',
    formula: 'mol-review',
    attached_bead_id: id,
    vars: { target: 'x' },
    force: true,
  });
  t.equal(forced.status, 201);
  t.equal(bead(h, id)!.metadata?.workflow_id, forced.body.workflow_id);
});

t.test(
  'bad input: upstream’s checks in order, unknown names 404, a bad formula 422; nothing written',
  async (t) => {
    const { h, sling } = await served(t);
    const { id } = (await h.beads.service.create({ title: 'x' })).bead;
    const closed = (await h.beads.service.create({ title: 'done' })).bead.id;
    await h.beads.service.close(closed);
    const head = (await h.events()).length;
    const cases: [unknown, number, RegExp, string?][] = [
      [{ target: 'worker' }, 400, /^invalid: bead or formula is required$/, 'body.bead'],
      [{ target: 'worker', bead: id, formula: 'mol-review' }, 400, /mutually exclusive/, 'body.formula'],
      [
        { target: 'worker', bead: id, attached_bead_id: id },
        400,
        /mutually exclusive/,
        'body.attached_bead_id',
      ],
      [
        { target: 'worker', attached_bead_id: id },
        400,
        /^invalid: bead or formula is required$/,
        'body.bead',
      ],
      [
        { target: 'worker', bead: id, vars: { a: 'b' } },
        400,
        /^invalid: vars requires formula$/,
        'body.vars',
      ],
      [{ target: 'worker', bead: id, title: 't' }, 400, /^invalid: title requires formula$/, 'body.title'],
      [{ target: 'worker', formula: 'mol-review', scope_kind: 'city' }, 400, /together/, 'body.scope_ref'],
      [
        { target: 'worker', formula: 'mol-review', scope_kind: 'town', scope_ref: 'x' },
        400,
        /^invalid: scope_kind must be city or rig$/,
        'body.scope_kind',
      ],
      [
        { target: 'worker', formula: 'mol-review', scope_kind: 'rig', scope_ref: 'r' },
        404,
        /^not_found: rig r/,
      ],
      [{ target: 'nobody', bead: id }, 404, /^not_found: target nobody not found$/],
      [{ target: 'worker', bead: 'gc-404' }, 404, /^not_found: bead gc-404 not found$/],
      [{ target: 'worker', bead: closed }, 409, /^conflict: bead .* is closed$/],
      [{ target: 'worker', formula: 'nope' }, 404, /^not_found: formula nope not found$/],
      [
        { target: 'worker', formula: 'mol-review' },
        422,
        /^missing_variable: missing required variable target$/,
      ],
      [{ target: 'worker', formula: 'loop' }, 422, /^invalid_formula: .*dependency cycle: a -> b -> a/],
      [
        { target: 'worker', formula: 'mol-review', vars: { target: 'x' }, attached_bead_id: 'gc-404' },
        404,
        /^not_found: bead gc-404 not found$/,
      ],
      [{ target: '', bead: id }, 422, /^validation failed$/, 'body.target'],
      [{ target: 'worker', bead: id, extra: 1 }, 422, /^validation failed$/, 'body.extra'],
    ];
    for (const [body, status, detail, location] of cases) {
      const res = await sling(body);
      t.equal(res.status, status, JSON.stringify(body));
      t.match(res.body.detail, detail, JSON.stringify(body));
      if (location) t.equal(res.body.errors?.[0]?.location, location, JSON.stringify(body));
    }
    for (const body of [
      { target: 'worker', bead: 'gc-404' },
      { target: 'worker', formula: 'mol-review', vars: { target: 'x' }, attached_bead_id: 'gc-404' },
    ]) {
      const missing = await sling(body);
      t.same(
        missing.body,
        {
          type: 'urn:gascity:error:sling-missing-bead',
          title: 'Not Found',
          status: 404,
          detail: 'not_found: bead gc-404 not found',
          errors: [
            {
              location: body.bead ? 'body.bead' : 'body.attached_bead_id',
              message: 'bead gc-404 not found',
              value: 'gc-404',
            },
          ],
        },
        'upstream’s problem type for a missing bead',
      );
    }
    const forced = await sling({ target: 'worker', bead: 'gc-404', force: true });
    t.same(
      [forced.status, forced.body.warnings],
      [200, [`bead gc-404 not found in store city:${h.name}; nothing was routed`]],
    );
    t.equal((await h.events()).length, head, 'nothing written on any error');
  },
);
