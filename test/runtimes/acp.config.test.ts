/**
 * ACP in a city's config: `[session.acp]` (upstream's keys) parsed and applied (the handshake deadline and
 * the lines kept reach the runtime), warned about where not applied or bad; an agent's `session = "acp"`
 * needs a provider that declares `supports_acp` (a precise error otherwise); the ACP-speaking presets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { effectiveConfigOf } from '../../actors/config/effectiveConfig.ts';
import { resolveTemplate } from '../../actors/sessions/templates.ts';
import { AcpProvider } from '../../actors/sessions/runtime/acpProvider.ts';
import { builtinPresets, mockAcpAgentCommand } from '../../actors/sessions/runtime/presets.ts';
import { acpSessionSettings, goDuration } from '../../machines/config/sessionAcp.ts';

const dir = mkdtempSync(join(tmpdir(), 'gc-acp-config-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const config = (toml: string) =>
  effectiveConfigOf(dir, `[workspace]\nname = "c"\nprovider = "mock"\n${toml}`);
const problemsAt = async (toml: string, prefix: string) =>
  (await config(toml)).problems.filter((p) => p.field.includes(prefix));

t.test('[session.acp]: the keys read, bad values and the unapplied key warned', async (t) => {
  const c = await config(
    '[session.acp]\nhandshake_timeout = "1m30s"\noutput_buffer_lines = 42\nnudge_busy_timeout = "10s"\n',
  );
  t.same(c.city.sessionAcp, {
    handshake_timeout: '1m30s',
    output_buffer_lines: 42,
    nudge_busy_timeout: '10s',
  });
  t.same(acpSessionSettings(c.city.sessionAcp), {
    handshakeTimeoutMs: 90_000,
    nudgeBusyTimeoutMs: 10_000,
    outputBufferLines: 42,
  });
  t.same(
    c.problems.filter((p) => p.field.startsWith('session')),
    [
      {
        severity: 'warning',
        file: 'city.toml',
        field: 'session.acp.nudge_busy_timeout',
        message: 'read but not applied: prompts queue while a turn runs and go when it ends',
      },
    ],
  );
  const bad = await problemsAt(
    '[session.acp]\nhandshake_timeout = "soon"\noutput_buffer_lines = -1\nbuffer = 3\n',
    'session.acp',
  );
  t.same(
    bad.map((p) => [p.severity, p.field, p.message]),
    [
      ['warning', 'session.acp.handshake_timeout', 'expected a duration such as "30s": 30s is used'],
      ['warning', 'session.acp.output_buffer_lines', 'expected a positive integer: 1000 is used'],
      [
        'warning',
        'session.acp.buffer',
        'unknown key (known: handshake_timeout, nudge_busy_timeout, output_buffer_lines)',
      ],
    ],
  );
  t.same(acpSessionSettings({ handshake_timeout: 'soon', output_buffer_lines: -1 }), {
    handshakeTimeoutMs: 30_000,
    nudgeBusyTimeoutMs: 60_000,
    outputBufferLines: 1000,
  });
  t.equal(goDuration('500ms'), 500);
  t.equal(goDuration('2h'), 7_200_000);
  t.equal(goDuration('30'), undefined, 'a bare number is no Go duration');
});

t.test('[session.acp] applied: the lines kept and the handshake deadline', async (t) => {
  const identity = { sessionId: 's', instanceToken: 't', city: 'c' };
  const few = new AcpProvider({ maxLines: 3 });
  t.teardown(() => few.close());
  await few.start('few', { command: mockAcpAgentCommand('--log-dir', dir), workDir: dir, identity });
  for (const text of ['one', 'two', 'three']) await few.nudge('few', text);
  await t.resolves(
    new Promise<void>((resolve) => {
      const check = () => {
        if (!few.peekNow('few', 0).includes('echo: three')) return;
        off();
        resolve();
      };
      const off = few.onChange('few', check);
      check();
    }),
  );
  t.ok(
    few.peekNow('few', 0).split('\n').length <= 5,
    'three lines kept (and the line being written, the prompt)',
  );
  t.notMatch(few.peekNow('few', 0), /echo: one/);

  // An agent that never answers initialize: the start fails at the configured deadline, not upstream's 30 s.
  const slow = new AcpProvider({ handshakeTimeoutMs: 300 });
  t.teardown(() => slow.close());
  const started = Date.now();
  await t.rejects(
    slow.start('slow', { command: 'exec sleep 30', workDir: dir, identity }),
    /the ACP handshake did not finish before the start deadline/,
  );
  t.ok(Date.now() - started < 10_000, 'failed at the deadline');
});

t.test('session = "acp" needs supports_acp: a precise config error, the presets', async (t) => {
  const noAcp = await problemsAt('[[agent]]\nname = "w"\nprovider = "codex"\nsession = "acp"\n', 'session');
  t.same(
    noAcp.map((p) => [p.severity, p.field, p.message]),
    [
      [
        'error',
        'agent[0] (w).session',
        'session = "acp" but provider "codex" does not support ACP (set supports_acp = true on the provider)',
      ],
    ],
  );
  const other = await problemsAt('[[agent]]\nname = "w"\nsession = "tmux"\n', 'session');
  t.same(
    other.map((p) => p.message),
    ['expected "acp" (or no session key), not "tmux"'],
  );
  for (const provider of ['claude', 'opencode', 'mock'])
    t.same(
      await problemsAt(`[[agent]]\nname = "w"\nprovider = "${provider}"\nsession = "acp"\n`, 'session'),
      [],
      `${provider} speaks ACP`,
    );

  // A city's own provider declares it (or a base that does); its acp_command/acp_args name the ACP form.
  const own = await config(
    '[providers.mine]\ncommand = "my-agent"\nsupports_acp = true\nacp_command = "my-agent-acp"\nacp_args = ["--stdio"]\n' +
      '[providers.derived]\nbase = "codex"\nsupports_acp = true\n' +
      '[providers.denied]\nbase = "claude"\nsupports_acp = false\n' +
      '[[agent]]\nname = "a"\nprovider = "mine"\nsession = "acp"\n' +
      '[[agent]]\nname = "b"\nprovider = "derived"\nsession = "acp"\n' +
      '[[agent]]\nname = "d"\nprovider = "denied"\nsession = "acp"\n',
  );
  t.same(
    own.problems.filter((p) => p.field.endsWith('.session')).map((p) => p.field),
    ['agent[2] (d).session'],
  );
  t.match(resolveTemplate(own.city, 'agent', 'a'), { transport: 'acp', command: 'my-agent-acp --stdio' });
  t.match(resolveTemplate(own.city, 'agent', 'b'), { transport: 'acp', command: 'codex' });
  t.throws(() => resolveTemplate(own.city, 'agent', 'd'), /supports_acp = true/);

  const presets = builtinPresets();
  t.match(presets.opencode, { supportsAcp: true, acpCommand: 'opencode acp', promptMode: 'none' });
  t.match(presets.claude, { supportsAcp: true, acpCommand: 'claude-code-acp' });
  t.notOk(presets.codex?.supportsAcp);
});

t.test(
  '[session] provider = "acp": validate names each agent whose provider does not speak ACP',
  async (t) => {
    const city = await config(
      '[session]\nprovider = "acp"\n' +
        '[[agent]]\nname = "ok"\n' + // the workspace's mock speaks ACP
        '[[agent]]\nname = "no"\nprovider = "codex"\n' +
        '[[agent]]\nname = "own"\nprovider = "codex"\nsession = "acp"\n',
    );
    t.same(
      city.problems.filter((p) => p.severity === 'error').map((p) => [p.file, p.field, p.message]),
      [
        [
          'city.toml',
          'session.provider',
          'agent no: session = "acp" but provider "codex" does not support ACP (set supports_acp = true on the provider)',
        ],
        [
          'city.toml',
          'agent[2] (own).session',
          'session = "acp" but provider "codex" does not support ACP (set supports_acp = true on the provider)',
        ],
      ],
      "the city's ask is reported at [session] provider, an agent's own at its session key",
    );
    // The same refusal a session create gives for that agent.
    t.throws(() => resolveTemplate(city.city, 'agent', 'no'), /supports_acp = true/);
    t.match(resolveTemplate(city.city, 'agent', 'ok'), { transport: 'acp' });
  },
);
