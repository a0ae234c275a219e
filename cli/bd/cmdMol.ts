import type { WorkflowSnapshot } from '../../schemas/formulas.ts';
import { bool, list, str, type FlagSpec } from './args.ts';
import { ApiFailure } from './client.ts';
import { jsonText, type BdContext } from './context.ts';
import { BdError, UnsupportedError } from './errors.ts';
import { toIssue } from './issue.ts';
import { molView, stepMarker, type MolView } from './molView.ts';
import { getBead, listAll } from './store.ts';

/**
 * `bd mol …`, the subset prompts use: `wisp`, `pour`, `current`, `show`, `burn`, `progress`. A molecule
 * is what our formula cook writes (POST /formulas/{name}/cook, one batch: the root and its steps); the
 * reads are GET /workflow/{id}, a burn is DELETE /workflow/{id}?delete=true. Every other subcommand
 * exits 2 naming it.
 */

export const MOL_FLAGS: FlagSpec = {
  var: { kind: 'list' },
  'root-only': { kind: 'bool' },
  assignee: { kind: 'string', short: 'a' },
  force: { kind: 'bool', short: 'f' },
  for: { kind: 'string' },
};

/** The flags each subcommand takes (beyond the global ones); any other is exit 2 naming it. */
const SUB_FLAGS: Record<string, readonly string[]> = {
  wisp: ['var', 'root-only'],
  pour: ['var', 'assignee'],
  current: ['for'],
  progress: ['for'],
  show: [],
  burn: ['force'],
};

export async function molCmd(ctx: BdContext): Promise<void> {
  const [sub, ...rest] = ctx.args.positional;
  const allowed = sub === undefined ? undefined : SUB_FLAGS[sub];
  if (!allowed || (sub === 'wisp' && (rest[0] === 'list' || rest[0] === 'gc'))) {
    const what = sub === 'wisp' ? `mol wisp ${rest[0] ?? ''}` : `mol ${sub ?? ''}`;
    throw new UnsupportedError(`unsupported command "bd ${what.trim()}"`);
  }
  for (const name of ctx.args.flags.keys()) {
    if (!(name in MOL_FLAGS) || allowed.includes(name)) continue;
    throw new UnsupportedError(`unsupported flag --${name} for "bd mol ${sub}"`);
  }
  if (sub === 'wisp' || sub === 'pour') return instantiate(ctx, sub, rest);
  if (sub === 'current' || sub === 'progress') return currentCmd(ctx, sub, rest);
  if (sub === 'show') return showCmd(ctx, rest);
  return burnCmd(ctx, rest);
}

/** `--var k=v` values; a malformed one is refused before anything is written. Pure. */
function varsOf(raw: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const r of raw) {
    const eq = r.indexOf('=');
    if (eq <= 0) throw new BdError(`invalid --var "${r}" (expected key=value)`);
    vars[r.slice(0, eq)] = r.slice(eq + 1);
  }
  return vars;
}

interface CookAnswer {
  root_bead_id: string;
  bead_ids: string[];
}

/** `bd mol wisp <formula>` (phase vapor) and `bd mol pour <formula>` (phase liquid): one cook. */
async function instantiate(ctx: BdContext, sub: 'wisp' | 'pour', rest: string[]): Promise<void> {
  if (rest.length !== 1) throw new BdError(`mol ${sub} requires exactly one formula name`);
  const formula = rest[0]!;
  const vars = varsOf(list(ctx.args, 'var'));
  const base = await ctx.client.cityPath();
  const body: Record<string, unknown> = {};
  if (Object.keys(vars).length > 0) body.vars = vars;
  if (bool(ctx.args, 'root-only')) body.root_only = true;
  let cooked: CookAnswer;
  try {
    cooked = (await ctx.client.call('POST', `${base}/formulas/${encodeURIComponent(formula)}/cook`, body))
      .body as CookAnswer;
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404) throw new BdError(`formula "${formula}" not found`);
    throw err;
  }
  const root = cooked.root_bead_id;
  const assignee = str(ctx.args, 'assignee');
  if (assignee) {
    await ctx.client.call('POST', `${base}/bead/${encodeURIComponent(root)}/update`, { assignee });
  }
  const snap = await workflow(ctx, root);
  const idMapping: Record<string, string> = { [formula]: root };
  // A step's ref is already qualified by the formula (`mol-x.scan`), as bd's proto IDs are.
  for (const b of snap.beads ?? []) {
    if (b.step_ref)
      idMapping[b.step_ref.startsWith(`${formula}.`) ? b.step_ref : `${formula}.${b.step_ref}`] = b.id;
  }
  if (ctx.json) {
    ctx.out(
      jsonText({
        new_epic_id: root,
        id_mapping: idMapping,
        created: cooked.bead_ids.length,
        phase: sub === 'wisp' ? 'vapor' : 'liquid',
      }),
    );
    return;
  }
  const n = cooked.bead_ids.length;
  ctx.out(
    `${sub === 'wisp' ? 'Created wisp' : 'Poured molecule'}: ${n} issue${n === 1 ? '' : 's'}\nRoot issue: ${root}`,
  );
}

/** GET /workflow/{id}; a bead that is no molecule root is bd's `<id> is not a molecule`. */
async function workflow(ctx: BdContext, id: string): Promise<WorkflowSnapshot> {
  const base = await ctx.client.cityPath();
  try {
    return (await ctx.client.call('GET', `${base}/workflow/${encodeURIComponent(id)}`))
      .body as WorkflowSnapshot;
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404) {
      await getBead(ctx.client, id); // a missing bead: bd's `no issue found matching`
      throw new BdError(`${id} is not a molecule`);
    }
    throw err;
  }
}

/** The molecule an ID names: itself if it is a root, else the root of the molecule it is a step of. */
async function moleculeOf(ctx: BdContext, id: string): Promise<MolView> {
  const bead = await getBead(ctx.client, id);
  const root = bead.metadata?.['gc.root_bead_id'] ?? id;
  return molView(await workflow(ctx, root));
}

/**
 * The molecules `actor` is working on: the roots of its in-progress beads that are molecule roots or
 * steps, oldest first, each once.
 */
async function actorMolecules(ctx: BdContext, actor: string): Promise<MolView[]> {
  const mine = await listAll(ctx.client, { status: 'in_progress', assignee: actor });
  const roots: string[] = [];
  for (const b of mine.sort((x, y) => x.created_at.localeCompare(y.created_at) || (x.id < y.id ? -1 : 1))) {
    const root = b.metadata?.['gc.root_bead_id'] ?? (b.metadata?.['gc.kind'] === 'workflow' ? b.id : '');
    if (root && !roots.includes(root)) roots.push(root);
  }
  const out: MolView[] = [];
  for (const r of roots) out.push(molView(await workflow(ctx, r)));
  return out;
}

/** `bd mol current [id] [--for actor]` and `bd mol progress [id]`. */
async function currentCmd(ctx: BdContext, sub: 'current' | 'progress', rest: string[]): Promise<void> {
  if (rest.length > 1) throw new BdError(`mol ${sub} takes at most one molecule ID`);
  const actor = str(ctx.args, 'for') || ctx.actor;
  const mols = rest.length === 1 ? [await moleculeOf(ctx, rest[0]!)] : await actorMolecules(ctx, actor);
  if (ctx.json) {
    ctx.out(jsonText(sub === 'current' ? mols.map(currentJson) : mols.map(progressJson)));
    return;
  }
  if (mols.length === 0) {
    ctx.out(`No molecule in progress for ${actor}`);
    return;
  }
  ctx.out(mols.map(sub === 'current' ? currentText : progressText).join('\n\n'));
}

const currentJson = (m: MolView) => ({
  molecule_id: m.root.id,
  title: m.root.title,
  status: m.root.status,
  ...(m.formula ? { formula: m.formula } : {}),
  completed: m.completed,
  total: m.steps.length,
  steps: m.steps.map((s) => ({
    id: s.id,
    title: s.title,
    status: s.status,
    marker: stepMarker(s),
    ...(s.assignee ? { assignee: s.assignee } : {}),
    ...(s.step_ref ? { step_ref: s.step_ref } : {}),
    needs: s.needs,
  })),
});

function currentText(m: MolView): string {
  const width = Math.max(0, ...m.steps.map((s) => stepMarker(s).length + 2));
  return [
    `Molecule: ${m.root.id} — ${m.root.title} [${m.root.status}]`,
    ...(m.formula ? [`Formula: ${m.formula}`] : []),
    `Progress: ${m.completed}/${m.steps.length} steps done`,
    ...(m.steps.length > 0 ? [''] : []),
    ...m.steps.map((s) => `  ${`[${stepMarker(s)}]`.padEnd(width)} ${s.id}: ${s.title}`),
  ].join('\n');
}

const percent = (m: MolView): number =>
  m.steps.length === 0
    ? m.root.status === 'closed'
      ? 100
      : 0
    : Math.floor((100 * m.completed) / m.steps.length);

const progressJson = (m: MolView) => ({
  molecule_id: m.root.id,
  title: m.root.title,
  completed: m.completed,
  in_progress: m.steps.filter((s) => s.status === 'in_progress').length,
  total: m.steps.length,
  percent: percent(m),
  ...(m.current ? { current_step_id: m.current } : {}),
});

function progressText(m: MolView): string {
  return [
    `Molecule: ${m.root.id} — ${m.root.title}`,
    `Progress: ${m.completed}/${m.steps.length} (${percent(m)}%)`,
    ...(m.current ? [`Current step: ${m.current}`] : []),
  ].join('\n');
}

/** `bd mol show <id>`: the root and its steps with what each needs. */
async function showCmd(ctx: BdContext, rest: string[]): Promise<void> {
  if (rest.length !== 1) throw new BdError('mol show requires exactly one molecule ID');
  const m = await moleculeOf(ctx, rest[0]!);
  if (ctx.json) {
    const root = toIssue(await getBead(ctx.client, m.root.id));
    ctx.out(jsonText({ root, ...currentJson(m) }));
    return;
  }
  ctx.out(
    [
      `Molecule: ${m.root.id} — ${m.root.title} [${m.root.status}]`,
      ...(m.formula ? [`Formula: ${m.formula}`] : []),
      `Steps (${m.steps.length}):`,
      ...m.steps.map(
        (s) =>
          `  ${s.id}: ${s.title} [${s.status}]${s.needs.length > 0 ? ` (needs ${s.needs.join(', ')})` : ''}`,
      ),
    ].join('\n'),
  );
}

/** `bd mol burn <id…> [--force]`: deletes each molecule whole; every ID is checked before any is burnt. */
async function burnCmd(ctx: BdContext, ids: string[]): Promise<void> {
  if (ids.length === 0) throw new BdError('mol burn requires at least one molecule ID');
  for (const id of ids) await workflow(ctx, id);
  const base = await ctx.client.cityPath();
  const done: { molecule_id: string; deleted: number }[] = [];
  for (const id of ids) {
    const res = (await ctx.client.call('DELETE', `${base}/workflow/${encodeURIComponent(id)}?delete=true`))
      .body as { deleted: number };
    done.push({ molecule_id: id, deleted: res.deleted });
    if (!ctx.json) ctx.out(`🔥 Burned molecule ${id}: ${res.deleted} issues deleted`);
  }
  if (ctx.json) ctx.out(jsonText(done));
}
