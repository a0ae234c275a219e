import type { BeadCommand, ResultOf } from './commands.ts';
import type { Outcome } from './decision.ts';
import type { EventContext } from './events.ts';
import type { BeadModel } from './model.ts';
import {
  decideAssign,
  decideClaim,
  decideClose,
  decideCreate,
  decideDelete,
  decideReopen,
  decideUpdate,
} from './decideBead.ts';
import {
  decideAnnounce,
  decideCloseConvoy,
  decideCreateConvoy,
  decideDeleteConvoy,
  decideSetMember,
} from './decideConvoy.ts';
import { decideAddDependency, decideRemoveDependency } from './decideDeps.ts';
import {
  decideArchive,
  decideDeleteMail,
  decideMarkRead,
  decideMarkUnread,
  decideReply,
  decideSend,
} from './decideMail.ts';

/**
 * The beads family's decider: what `command` does to the city's beads, given the model as folded up to
 * `model.seq`. Ids and time come from the model (`nextNumber`) and `ctx` (`now`), never from a clock or
 * a random source, so the same model, command and context always decide the same events.
 * This is a pure function: it reads `model` and writes nothing.
 */
export function decide<C extends BeadCommand>(
  model: BeadModel,
  command: C,
  ctx: EventContext,
): Outcome<ResultOf<C>> {
  return decideAny(model, command, ctx) as Outcome<ResultOf<C>>;
}

function decideAny(model: BeadModel, c: BeadCommand, ctx: EventContext): Outcome<unknown> {
  switch (c.type) {
    case 'CreateBead':
      return decideCreate(model, c, ctx);
    case 'UpdateBead':
      return decideUpdate(model, c, ctx);
    case 'CloseBead':
      return decideClose(model, c, ctx);
    case 'ReopenBead':
      return decideReopen(model, c, ctx);
    case 'DeleteBead':
      return decideDelete(model, c, ctx);
    case 'AssignBead':
      return decideAssign(model, c, ctx);
    case 'ClaimBead':
      return decideClaim(model, c, ctx);
    case 'AddDependency':
      return decideAddDependency(model, c, ctx);
    case 'RemoveDependency':
      return decideRemoveDependency(model, c, ctx);
    case 'SendMail':
      return decideSend(model, c, ctx);
    case 'ReplyMail':
      return decideReply(model, c, ctx);
    case 'MarkMailRead':
      return decideMarkRead(model, c, ctx);
    case 'MarkMailUnread':
      return decideMarkUnread(model, c, ctx);
    case 'ArchiveMail':
      return decideArchive(model, c, ctx);
    case 'DeleteMail':
      return decideDeleteMail(model, c, ctx);
    case 'CreateConvoy':
      return decideCreateConvoy(model, c, ctx);
    case 'SetConvoyMember':
      return decideSetMember(model, c, ctx);
    case 'AnnounceConvoy':
      return decideAnnounce(model, c, ctx);
    case 'CloseConvoy':
      return decideCloseConvoy(model, c, ctx);
    case 'DeleteConvoy':
      return decideDeleteConvoy(model, c, ctx);
    default: {
      const never: never = c;
      throw new Error(`unknown bead command ${JSON.stringify(never)}`);
    }
  }
}
