/** The workspaceServices family's face: what other families and the HTTP layer may use of it. */
export { WORKSPACE_SERVICES, workspaceServicesFactory } from './startWorkspaceServices.ts';
export { type ServiceRoute, type WorkspaceServices } from './workspaceServices.ts';
