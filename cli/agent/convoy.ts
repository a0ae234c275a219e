import { CONVOY_SUBCOMMANDS } from './subcommands.ts';
import type { Bead } from '../../schemas/beads.ts';
import type { ConvoyGetResponse } from '../../schemas/convoys.ts';
import { bool } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { GcAgentError } from './errors.ts';
import type { AgentIo } from './io.ts';

/** `gc convoy create|list|status|close|check` over the city's convoy API (upstream's output lines). */

const table = (rows: string[][]): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows
      .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 2))).join(''))
      .join('\n') + '\n'
  );
};

async function base(io: AgentIo): Promise<string> {
  return `${await io.client.cityPath()}`;
}

async function openConvoys(io: AgentIo): Promise<Bead[]> {
  const body = (await io.client.call('GET', `${await base(io)}/convoys?limit=1000`)).body as {
    items: Bead[] | null;
  };
  return body.items ?? [];
}

async function detail(io: AgentIo, id: string): Promise<ConvoyGetResponse> {
  return (await io.client.call('GET', `${await base(io)}/convoy/${encodeURIComponent(id)}`))
    .body as ConvoyGetResponse;
}

export async function convoy(io: AgentIo): Promise<number> {
  const [sub, ...argv] = io.argv;
  if (!sub) throw new GcAgentError(`missing subcommand (${CONVOY_SUBCOMMANDS.join(', ')})`);
  const args = parseGcArgs(argv, sub === 'create' ? { owned: { kind: 'bool' } } : {}, `convoy ${sub}`);
  const [first, ...rest] = args.positional;
  switch (sub) {
    case 'create': {
      if (!first) throw new GcAgentError('accepts at least 1 arg(s)');
      const made = (
        await io.client.call('POST', `${await base(io)}/convoys`, {
          title: first,
          ...(rest.length ? { items: rest } : {}),
        })
      ).body as Bead;
      if (bool(args, 'owned'))
        await io.client.call('POST', `${await base(io)}/bead/${made.id}/update`, { labels: ['owned'] });
      io.out(
        `Created convoy ${made.id} "${first}"${rest.length ? ` tracking ${rest.length} issue(s)` : ''}\n`,
      );
      return 0;
    }
    case 'list': {
      const convoys = await openConvoys(io);
      if (convoys.length === 0) {
        io.out('No open convoys\n');
        return 0;
      }
      const rows = [['ID', 'TITLE', 'PROGRESS']];
      for (const c of convoys) {
        const p = (await detail(io, c.id)).progress;
        rows.push([c.id, c.title, `${p?.closed ?? 0}/${p?.total ?? 0} closed`]);
      }
      io.out(table(rows));
      return 0;
    }
    // The issue's `convoy show`; upstream has only `status` (its docs point `show` there).
    case 'show':
    case 'status': {
      if (!first || rest.length) throw new GcAgentError('accepts 1 arg(s)');
      const d = await detail(io, first);
      const c = d.convoy!;
      const lines = [
        `Convoy:   ${c.id}`,
        `Title:    ${c.title}`,
        `Status:   ${c.status}`,
        `Progress: ${d.progress?.closed ?? 0}/${d.progress?.total ?? 0} closed`,
      ];
      if (c.labels?.includes('owned')) lines.push('Lifecycle: owned');
      io.out(`${lines.join('\n')}\n\n`);
      const kids = d.children ?? [];
      if (kids.length > 0)
        io.out(
          table([
            ['ID', 'TITLE', 'STATUS', 'ASSIGNEE'],
            ...kids.map((k) => [k.id, k.title, k.status, k.assignee ?? '']),
          ]),
        );
      return 0;
    }
    case 'close': {
      if (!first || rest.length) throw new GcAgentError('accepts 1 arg(s)');
      await io.client.call('POST', `${await base(io)}/convoy/${encodeURIComponent(first)}/close`);
      io.out(`Closed convoy ${first}\n`);
      return 0;
    }
    case 'check': {
      let closed = 0;
      for (const c of await openConvoys(io)) {
        if (c.labels?.includes('owned')) continue;
        const url = `${await base(io)}/convoy/${encodeURIComponent(c.id)}`;
        const check = (await io.client.call('GET', `${url}/check`)).body as { complete: boolean };
        if (!check.complete) continue;
        await io.client.call('POST', `${url}/close`);
        io.out(`Auto-closed convoy ${c.id} "${c.title}"\n`);
        closed++;
      }
      io.out(`${closed} convoy(s) auto-closed\n`);
      return 0;
    }
    default:
      throw new GcAgentError(`unknown subcommand "${sub}"`);
  }
}
