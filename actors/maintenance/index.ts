/** The maintenance family's face: what other families and the HTTP layer may use of it. */
export { type CityMaintenance, MAINTENANCE_SERVICE, maintenanceServiceFactory } from './startMaintenance.ts';
