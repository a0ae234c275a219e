import { extmsgServiceFactory } from '../../actors/extmsg/index.ts';
import type { ServedFamily } from '../family.ts';
import { extmsgRoutes } from './extmsg.ts';

/** The extmsg family served: external messaging (adapters, bindings, transcripts), and its routes. */
export const extmsgFamily: ServedFamily = {
  name: 'extmsg',
  services: [extmsgServiceFactory()],
  routes(scope, deps) {
    extmsgRoutes(scope, deps);
  },
};
