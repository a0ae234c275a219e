import t from 'tap';
import { call, formulaHarness, REVIEW } from './helpers.ts';

t.test('list, detail (both paths) and preview serve the formula directory', async (t) => {
  const h = await formulaHarness(t);
  await h.formula('mol-review.toml', REVIEW);
  await h.formula('mol-other.formula.toml', 'description = "legacy name"\n[[steps]]\nid = "x"\n');
  await h.formula('mol-aspect.toml', 'type = "aspect"\n');
  await h.formula('broken.toml', '[[steps]]\nid = "a"\nneeds = ["a"]\n');
  const list = await call(h, 'GET', '/formulas');
  t.equal(list.statusCode, 200, list.body);
  t.match(list.json(), { partial: true, total: 2 });
  t.same(
    list.json().items.map((i: { name: string }) => i.name),
    ['mol-other', 'mol-review'],
  );
  for (const path of ['/formulas/mol-review', '/formula/mol-review']) {
    const res = await call(h, 'GET', path);
    t.equal(res.statusCode, 200, res.body);
    t.same(res.json().preview.edges, [
      { from: 'mol-review.read', to: 'mol-review.lint', kind: 'blocks' },
      { from: 'mol-review.lint', to: 'mol-review.report', kind: 'blocks' },
    ]);
  }
  const preview = await call(h, 'POST', '/formulas/mol-review/preview', {
    target: 'worker',
    vars: { target: 'PR-1', mode: 'full' },
  });
  t.equal(preview.statusCode, 200, preview.body);
  t.same(
    preview.json().preview.nodes.map((n: { title: string }) => n.title),
    ['Read PR-1', 'Lint (full)', 'Test', 'Report on PR-1'],
  );
  t.equal((await h.events()).length, 0, 'nothing written');
});

t.test('bad input: 404 unknown, 422 naming the cycle, the missing variable; nothing written', async (t) => {
  const h = await formulaHarness(t);
  await h.formula('mol-review.toml', REVIEW);
  await h.formula('loop.toml', '[[steps]]\nid = "a"\nneeds = ["b"]\n[[steps]]\nid = "b"\nneeds = ["a"]\n');
  t.equal((await call(h, 'GET', '/formulas/nope')).statusCode, 404);
  t.equal((await call(h, 'GET', '/formulas/..%2Fcity')).statusCode, 404);
  t.equal((await call(h, 'POST', '/formulas/nope/cook', {})).statusCode, 404);
  const cycle = await call(h, 'POST', '/formulas/loop/cook', {});
  t.equal(cycle.statusCode, 422);
  t.match(
    cycle.json().detail,
    /^invalid_formula: .*formulas\/loop\.toml:1 steps\[0\]\.needs: dependency cycle: a -> b -> a/,
  );
  t.match(cycle.json().errors, [{ location: 'formulas/loop.toml:1', value: 'steps[0].needs' }]);
  const missing = await call(h, 'POST', '/formulas/mol-review/cook', { vars: { mode: 'full' } });
  t.equal(missing.statusCode, 422);
  t.equal(missing.json().detail, 'missing_variable: missing required variable target');
  t.match(missing.json().errors, [{ location: 'body.vars.target' }]);
  const preview = await call(h, 'POST', '/formulas/mol-review/preview', { target: 'w', vars: { mode: 'x' } });
  t.equal(preview.statusCode, 422, 'a preview with variables checks them');
  t.equal((await call(h, 'POST', '/formulas/mol-review/cook', { bogus: 1 })).statusCode, 422);
  t.equal((await call(h, 'GET', `/formulas?scope_kind=city&scope_ref=elsewhere`)).statusCode, 404);
  t.equal((await h.events()).length, 0, 'nothing written on any error');
});

t.test(
  'cook writes the whole molecule as one batch; workflow GET shows progress; DELETE closes it',
  async (t) => {
    const h = await formulaHarness(t);
    await h.formula('mol-review.toml', REVIEW);
    const res = await call(h, 'POST', '/formulas/mol-review/cook', {
      vars: { target: 'PR-7' },
      target: 'worker',
    });
    t.equal(res.statusCode, 201, res.body);
    const { workflow_id: id, bead_ids: ids } = res.json();
    t.equal(ids.length, 4);
    const events = await h.events();
    t.same(
      events.map((e) => [e.seq, e.type, e.subject]),
      ids.map((b: string, i: number) => [i + 1, 'bead.created', b]),
    );
    const ready = await call(h, 'GET', '/beads/ready');
    t.same(
      ready
        .json()
        .items.map((b: { title: string }) => b.title)
        .sort(),
      ['Read PR-7', 'mol-review'].sort(),
      'only the first step (and the root) are ready',
    );
    t.notOk('progress' in (await call(h, 'GET', `/workflow/${id}`)).json(), 'progress only on opt-in');
    const snap = await call(h, 'GET', `/workflow/${id}?extras=true`);
    t.equal(snap.statusCode, 200, snap.body);
    t.match(snap.json(), {
      workflow_id: id,
      root_bead_id: id,
      progress: { status: 'pending', total: 3, open: 3, closed: 0, percent: 0 },
    });
    t.equal(snap.json().deps.length, 2);
    t.equal(snap.headers['x-gc-index'], '4');
    t.equal((await call(h, 'POST', `/bead/${ids[1]}/close`)).statusCode, 200);
    t.match((await call(h, 'GET', `/workflow/${id}?extras=true`)).json().progress, {
      closed: 1,
      percent: 33,
    });
    const runs = await call(h, 'GET', '/formulas/mol-review/runs');
    t.match(runs.json(), {
      formula: 'mol-review',
      run_count: 1,
      recent_runs: [{ workflow_id: id, target: 'worker' }],
    });
    const feed = await call(h, 'GET', '/formulas/feed');
    t.match(feed.json().items, [{ id, type: 'formula', status: 'pending' }]);
    const del = await call(h, 'DELETE', `/workflow/${id}`);
    t.same(del.json(), { workflow_id: id, closed: 3, deleted: 0 });
    t.match((await call(h, 'GET', `/workflow/${id}?extras=true`)).json().progress, {
      status: 'completed',
      percent: 100,
    });
    t.equal((await call(h, 'DELETE', `/workflow/${ids[1]}`)).statusCode, 404, 'a step is not a workflow');
    const gone = await call(h, 'DELETE', `/workflow/${id}?delete=true`);
    t.same(gone.json(), { workflow_id: id, closed: 0, deleted: 4 });
    t.equal((await call(h, 'GET', `/workflow/${id}`)).statusCode, 404);
    await h.restart();
    t.equal(h.beads.service.model.beads.size, 0, 'the replayed log agrees');
  },
);
