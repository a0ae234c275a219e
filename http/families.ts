import { beadsFamily } from './routes/beadsFamily.ts';
import { sessionsFamily } from './routes/sessionsFamily.ts';
import { agentsFamily } from './routes/agentsFamily.ts';
import { configFamily } from './routes/configFamily.ts';
import { extmsgFamily } from './routes/extmsgFamily.ts';
import { formulasFamily } from './routes/formulasFamily.ts';
import { ordersFamily } from './routes/ordersFamily.ts';
import { slingFamily } from './routes/slingFamily.ts';
import { workspaceServicesFamily } from './routes/workspaceServicesFamily.ts';
import { maintenanceFamily } from './routes/maintenanceFamily.ts';
import type { ServedFamily } from './family.ts';

/**
 * The families a served supervisor is made of, in the order their city services start and their routes are
 * registered: the one list a new family joins (docs/architecture.md, "Adding a family"). Each entry is the
 * family's own `http/routes/<family>Family.ts`.
 */
export const FAMILIES: readonly ServedFamily[] = [
  beadsFamily,
  sessionsFamily,
  agentsFamily,
  configFamily,
  extmsgFamily,
  formulasFamily,
  ordersFamily,
  slingFamily,
  workspaceServicesFamily,
  maintenanceFamily,
];
