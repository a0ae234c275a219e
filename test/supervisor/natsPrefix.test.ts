import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import t from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { runSupervisor } from '../../http/main.ts';
import { withJetStream } from '../helpers/nats.ts';
import { fakeHost, waitForTerminal } from '../helpers/supervisor.ts';

t.test('two supervisors with one city path on one JetStream stay apart by their prefixes', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  // The same $HOME and $GC_HOME paths on both "hosts": without prefixes they would share every stream.
  const root = mkdtempSync(join(tmpdir(), 'gc-prefix-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'home', 'alpha');
  for (const [i, prefix] of ['hosta', 'hostb'].entries()) {
    const gcHome = join(root, `gchome`);
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const config = loadConfig({
      GC_HOME: gcHome,
      GC_PORT: '0',
      GC_NATS_URL: nats.url,
      GC_NATS_PREFIX: prefix,
    });
    const running = await runSupervisor(config, { host: fakeHost(home) });
    t.teardown(() => running.close());
    const res = await fetch(`${running.url}/v0/city`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gc-request': '1' },
      body: JSON.stringify({ dir, start_command: 'true' }),
    });
    const body = (await res.json()) as { request_id: string };
    t.equal(res.status, 202, `supervisor ${prefix} creates ${dir}`);
    await waitForTerminal(running.supervisor.log.journal, body.request_id);
    await running.close();
    // The second "host" starts from a clean disk with the same paths.
    rmSync(join(root, 'home'), { recursive: true, force: true });
    rmSync(gcHome, { recursive: true, force: true });
    if (i === 0) t.comment('host a done; host b reuses the same paths');
  }

  const nc = await connect({ servers: nats.url });
  t.teardown(() => nc.close());
  const jsm = await jetstreamManager(nc);
  const names: string[] = [];
  for await (const s of jsm.streams.list()) names.push(s.config.name);
  names.sort();
  t.same(
    names.map((n) => n.replace(/_[0-9a-f]{8}$/, '')),
    ['HOSTA_alpha', 'HOSTA_gchome', 'HOSTB_alpha', 'HOSTB_gchome'],
    'each supervisor has its own supervisor and city streams, named by its prefix',
  );
  for (const prefix of ['HOSTA', 'HOSTB']) {
    const city = names.find((n) => n.startsWith(`${prefix}_alpha`))!;
    const info = await jsm.streams.info(city);
    t.ok(info.state.messages >= 2, `${city} holds its own city.created and controller.started`);
  }
});
